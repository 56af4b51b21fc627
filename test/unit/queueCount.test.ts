import { describe, expect, it } from 'vitest';
import { queueCountText } from '../../src/web/office/ui.js';

describe('queue counts in the back office', () => {
  it('show the count up to 999 and "999+" past it, where counting stops', () => {
    expect([1, 42, 999, 1000, 176_534].map(queueCountText)).toEqual(['1', '42', '999', '999+', '999+']);
  });
});
