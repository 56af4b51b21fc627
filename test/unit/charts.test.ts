import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { barChart, niceMax } from '../../src/web/charts.js';

describe('barChart', () => {
  const chart = barChart({
    title: 'Turnover <30 days>',
    description: 'Daily turnover & credits',
    labels: ['2026-11-01', '2026-11-02'],
    series: [
      { name: 'Turnover', values: ['100.12345678', '0'] },
      { name: 'Credits', values: ['95.5', 'not a number'] },
    ],
    unit: 'USD',
  }).value;

  it('is an accessible SVG with title, description and a hidden data table', () => {
    expect(chart).toContain('role="img"');
    expect(chart).toMatch(/<title id="chart\d+-t">Turnover &lt;30 days&gt;<\/title>/);
    expect(chart).toContain('Daily turnover &amp; credits');
    expect(chart).toContain('<div class="visually-hidden"><table>');
    // Exact decimal strings in the table, not floats.
    expect(chart).toContain('<td>100.12345678</td>');
    expect(chart).toContain('<th scope="row">2026-11-02</th>');
  });

  it('draws one bar per value, never NaN, and no inline style', () => {
    expect(chart.match(/<rect x=/g)).toHaveLength(4);
    expect(chart).not.toContain('NaN');
    expect(chart).not.toContain('style=');
  });

  it('rounds the axis up to 1, 2 or 5 times a power of ten', () => {
    expect(niceMax(new Decimal('100.12')).toFixed()).toBe('200');
    expect(niceMax(new Decimal('0.03')).toFixed()).toBe('0.05');
    expect(niceMax(new Decimal('0')).toFixed()).toBe('1');
    expect(niceMax(new Decimal('5000')).toFixed()).toBe('5000');
  });
});
