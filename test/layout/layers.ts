/**
 * The layers of src/ as test/layout/layers.json lists them (bottom first), and the picture
 * of them that docs/architecture.md shows. eslint.config.mjs reads the same file.
 */
import layersFile from './layers.json';

export interface Layer {
  /** A folder of src/, or a top-level file with its extension (`index.ts`). */
  name: string;
  /** The layers it may import, each listed before it. */
  imports: string[];
  /** Of those, the ones it may import with `import type` only. */
  typeOnly?: string[];
  /** Why an arrow is there, where it is not plain. */
  why?: string;
}

export const LAYERS: readonly Layer[] = layersFile.layers;

/** Where the picture stands in docs/architecture.md. */
export const PICTURE_BEGIN =
  '<!-- layers: generated from test/layout/layers.json (test/layout/dependencies.test.ts) -->';
export const PICTURE_END = '<!-- /layers -->';

/** Top layer first, each with the layers it may import (`(types)`: `import type` only). */
export function renderPicture(layers: readonly Layer[] = LAYERS): string {
  const width = Math.max(...layers.map((l) => l.name.length));
  const lines = [...layers].reverse().map((l) => {
    const arrows = l.imports.map((to) => (l.typeOnly?.includes(to) ? `${to} (types)` : to));
    return `${l.name.padEnd(width)}  → ${arrows.length ? arrows.join(', ') : '(nothing)'}`.trimEnd();
  });
  return [PICTURE_BEGIN, '```', ...lines, '```', PICTURE_END].join('\n');
}
