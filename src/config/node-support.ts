/**
 * The Node.js versions reelflow supports: the maintained LTS lines (docs/deploy.md, "Node.js").
 * Node 20 reached its end of life in April 2026; an older Node still runs, with a warning at
 * the start of the worker and the CLI, since it gets no security fixes.
 */
export const SUPPORTED_NODE_MAJORS = [22, 24] as const;

/** The warning for this Node, or undefined on a supported one (or a newer major). */
export function nodeSupportWarning(version: string = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0]);
  if (!Number.isInteger(major) || major >= SUPPORTED_NODE_MAJORS[0]) return undefined;
  return (
    `Node.js ${version} is past its end of life and unsupported: run reelflow on Node.js ` +
    `${SUPPORTED_NODE_MAJORS.join(' or ')} (the image ships 24)`
  );
}
