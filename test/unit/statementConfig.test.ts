import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('STATEMENT_EXPORTS_PER_MERCHANT and STATEMENT_EXPORTS_PER_PROCESS', () => {
  it('default to 2 statements of a merchant and 4 in all, and take whole numbers from 1 to 100', () => {
    expect(parseConfig({}).statementExports).toEqual({ perMerchant: 2, perProcess: 4 });
    expect(parseConfig({ STATEMENT_EXPORTS_PER_MERCHANT: '1', STATEMENT_EXPORTS_PER_PROCESS: '100' }).statementExports).toEqual({ perMerchant: 1, perProcess: 100 });
  });

  it.each(['STATEMENT_EXPORTS_PER_MERCHANT', 'STATEMENT_EXPORTS_PER_PROCESS'])('%s refuses 0, fractions, words and more than 100, naming the variable', (name) => {
    for (const v of ['0', '1.5', 'two', '101']) {
      expect(() => parseConfig({ [name]: v })).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: v })).toThrow(new RegExp(`^${name}: `));
    }
  });
});
