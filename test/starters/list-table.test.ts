/** `reelflow list`'s VENDOR TASKS column: capped, with an ellipsis and a count (docs/cli.md). */
import { VENDOR_TASKS_WIDTH, vendorTasksCell } from '../../src/starters/cli/commands/list';

const id = (n: number) => `cgt-${String(n).padStart(24, '0')}`; // a vendor id's usual 28 characters

test('ids that fit are listed whole', () => {
  expect(vendorTasksCell([])).toBe('');
  expect(vendorTasksCell([id(1), id(2)])).toBe(`${id(1)},${id(2)}`);
});

test('more than fit: the ones that do, an ellipsis and how many are left out', () => {
  const ids = Array.from({ length: 40 }, (_, i) => id(i));
  const cell = vendorTasksCell(ids);
  expect(cell).toBe(`${id(0)},… (+39 more)`);
  expect(cell.length).toBeLessThanOrEqual(VENDOR_TASKS_WIDTH);
});

test('one id longer than the column is cut, and the rest still counted', () => {
  const long = 'x'.repeat(100);
  expect(vendorTasksCell([long])).toBe(`${'x'.repeat(VENDOR_TASKS_WIDTH - 1)}…`);
  expect(vendorTasksCell([long, id(1)], 20)).toBe(`${'x'.repeat(19)}… (+1 more)`);
});
