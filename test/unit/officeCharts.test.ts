import { describe, expect, it } from 'vitest';
import { toString } from '../../src/web/html.js';
import { barChart, columnChart, rateTone } from '../../src/web/office/charts.js';

describe('back-office charts', () => {
  const bars = [
    { label: '<b>Pool</b>', value: 50, text: '50 % (1/2)', tone: rateTone(50) },
    { label: 'Sandbox', value: null, text: '' },
  ];

  it('draws an accessible SVG with its title and the same figures as a table, every label escaped', () => {
    const svg = toString(barChart({ id: 'c1', title: 'Success & failure', bars, max: 100, unit: 'Success rate' }));
    expect(svg).toContain('role="img" aria-labelledby="c1-title"');
    expect(svg).toContain('<title id="c1-title">Success &amp; failure</title>');
    expect(svg).toContain('&lt;b&gt;Pool&lt;/b&gt;');
    expect(svg).not.toContain('<b>Pool');
    expect(svg).toMatch(/<td>&lt;b&gt;Pool&lt;\/b&gt;<\/td><td class="num">50 % \(1\/2\)<\/td>/);
    expect(svg).toContain('<td>Sandbox</td><td class="num">no data</td>');
    // Half of the 190-unit track for 50 of 100.
    expect(svg).toContain('width="95" height="18" class="chart-bar warn"');
  });

  it('columns carry the full label in the table and tooltip, and say when there is nothing to draw', () => {
    const svg = toString(columnChart({ id: 'c2', title: 'Daily', bars: [{ label: '15', full: '2026-01-15', value: 100, text: '100 %', tone: 'ok' }], max: 100 }));
    expect(svg).toContain('<title>2026-01-15: 100 %</title>');
    expect(svg).toContain('<td>2026-01-15</td>');
    expect(toString(barChart({ id: 'c3', title: 'Nothing', bars: [] }))).toContain('Nothing: no data yet.');
  });

  it('tones success rates green, amber and red', () => {
    expect([rateTone(95), rateTone(60), rateTone(10), rateTone(null)]).toEqual(['ok', 'warn', 'bad', undefined]);
  });
});
