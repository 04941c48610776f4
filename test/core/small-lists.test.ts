import { expect, it } from 'vitest';
import { addedOnce, appended } from '../../src/core/small-lists.js';

it('makes a list on its first item and appends to it after', () => {
  const first = appended(undefined, 'a');
  expect(first).toEqual(['a']);
  expect(appended(first, 'b')).toBe(first);
  expect(first).toEqual(['a', 'b']);
});

it('adds an item once', () => {
  const list = addedOnce(undefined, 'task-1');
  expect(addedOnce(list, 'task-1')).toBe(list);
  expect(addedOnce(list, 'task-2')).toEqual(['task-1', 'task-2']);
});
