import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  RATE_PRECISION,
  childrenNamed,
  decodeXml,
  joinUrl,
  localName,
  needsFeed,
  parsePlainDecimal,
  parseXml,
  ratesWithoutFeed,
  ratioOfProducts,
  singleChildText,
} from '../../../src/fx/source.js';

const latin1 = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

describe('parseXml', () => {
  it('reads elements, both attribute quotes, text, entities, CDATA, comments and PIs', () => {
    const root = parseXml(
      `<?xml version="1.0"?>\n<!-- lead --><a x="1" y='two &amp; &#x33;'>` +
        `<b>caf&#233; &lt;ok&gt;</b><?pi data?><c/><!-- mid --><d><![CDATA[<raw & text>]]></d></a>\n`,
    );
    expect(root.name).toBe('a');
    expect(root.attributes.get('x')).toBe('1');
    expect(root.attributes.get('y')).toBe('two & 3');
    expect(root.children.map((c) => c.name)).toEqual(['b', 'c', 'd']);
    expect(root.children[0].text).toBe('café <ok>');
    expect(root.children[2].text).toBe('<raw & text>');
  });

  it('keeps prefixes in names and strips them in localName', () => {
    const root = parseXml('<g:Envelope xmlns:g="urn:x"><Cube/><g:Cube/></g:Envelope>');
    expect(root.name).toBe('g:Envelope');
    expect(localName(root.name)).toBe('Envelope');
    expect(childrenNamed(root, 'Cube')).toHaveLength(2);
  });

  it.each([
    ['mismatched end tag', '<a><b></a></b>'],
    ['unclosed element', '<a><b></b>'],
    ['content after the root', '<a/><b/>'],
    ['text after the root', '<a/>junk'],
    ['no root', '<?xml version="1.0"?>  '],
    ['bare ampersand', '<a>fish & chips</a>'],
    ['unknown entity', '<a>&nbsp;</a>'],
    ['external entity declaration', '<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>'],
    ['duplicate attribute', '<a x="1" x="2"/>'],
    ['unquoted attribute', '<a x=1/>'],
    ['attributes without whitespace', '<a x="1"y="2"/>'],
    ['lt in attribute', '<a x="<"/>'],
    ['character reference to NUL', '<a>&#0;</a>'],
    ['unterminated comment', '<a><!-- never closed</a>'],
  ])('refuses %s', (_what, doc) => {
    expect(() => parseXml(doc)).toThrow(SyntaxError);
  });

  it('refuses nesting deeper than 64 levels instead of overflowing the stack', () => {
    const deep = '<a>'.repeat(200) + '</a>'.repeat(200);
    expect(() => parseXml(deep)).toThrow(/nested too deeply/);
    const fine = '<a>'.repeat(60) + '</a>'.repeat(60);
    expect(parseXml(fine).name).toBe('a');
  });
});

describe('singleChildText', () => {
  it('returns trimmed text of exactly one child, null when missing, repeated or not a leaf', () => {
    const root = parseXml('<r><v> 1 </v><w>a</w><w>b</w><n><x/></n></r>');
    expect(singleChildText(root, 'v')).toBe('1');
    expect(singleChildText(root, 'missing')).toBeNull();
    expect(singleChildText(root, 'w')).toBeNull();
    expect(singleChildText(root, 'n')).toBeNull();
  });
});

describe('decodeXml', () => {
  it('decodes by the encoding the declaration names', () => {
    // 0xC4 0xEE 0xEB = "Дол" in windows-1251.
    const bytes = new Uint8Array([...latin1('<?xml version="1.0" encoding="windows-1251"?><n>'), 0xc4, 0xee, 0xeb, ...latin1('</n>')]);
    expect(parseXml(decodeXml(bytes)).text).toBe('Дол');
  });

  it('defaults to UTF-8 and strips a UTF-8 byte order mark', () => {
    expect(decodeXml(new Uint8Array(Buffer.from('<n>€</n>', 'utf8')))).toBe('<n>€</n>');
    expect(decodeXml(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('<n/>')]))).toBe('<n/>');
  });

  it('refuses bytes invalid in the declared encoding and unknown encodings', () => {
    const badUtf8 = new Uint8Array([...latin1('<?xml version="1.0" encoding="UTF-8"?><n>'), 0xc4, 0xee, ...latin1('</n>')]);
    expect(() => decodeXml(badUtf8)).toThrow(/not valid UTF-8/);
    expect(() => decodeXml(latin1('<?xml version="1.0" encoding="x-klingon"?><n/>'))).toThrow(/unsupported XML encoding/);
  });
});

describe('parsePlainDecimal', () => {
  it('accepts unsigned plain decimals exactly', () => {
    expect(parsePlainDecimal('42.41000000')?.toFixed(8)).toBe('42.41000000');
    expect(parsePlainDecimal('0.0000000123456789012345')?.toFixed(22)).toBe('0.0000000123456789012345');
  });

  it.each(['', '-1', '+1', '1e3', '1,5', '1.', '.5', ' 1', '1 000', 'NaN', 'Infinity'])('refuses %j', (text) => {
    expect(parsePlainDecimal(text)).toBeNull();
  });
});

describe('ratioOfProducts', () => {
  it(`keeps ${RATE_PRECISION} significant digits and does not round to 8 places`, () => {
    const q = ratioOfProducts([new Decimal('91.8'), new Decimal(100)], [new Decimal('17.68')]);
    expect(q.toString()).toBe('519.2307692307692307692307692307692307692');
    expect(q.precision()).toBe(RATE_PRECISION);
  });

  it('returns exact values exactly and an ordinary Decimal', () => {
    const q = ratioOfProducts([new Decimal('80.9735')], [new Decimal(1)]);
    expect(q.toString()).toBe('80.9735');
    expect(q).toBeInstanceOf(Decimal);
  });

  it('refuses a zero denominator', () => {
    expect(() => ratioOfProducts([new Decimal(1)], [new Decimal(0)])).toThrow(RangeError);
  });
});

describe('small helpers', () => {
  it('joinUrl tolerates a trailing slash and keeps a path prefix', () => {
    expect(joinUrl('https://www.cbr.ru/', '/scripts/XML_daily.asp')).toBe('https://www.cbr.ru/scripts/XML_daily.asp');
    expect(joinUrl('http://127.0.0.1:8080/mirror', '/x')).toBe('http://127.0.0.1:8080/mirror/x');
  });

  it('USD alone needs no feed and is exactly 1', () => {
    expect(needsFeed(['USD'])).toBe(false);
    expect(needsFeed([])).toBe(false);
    expect(needsFeed(['USD', 'RUB'])).toBe(true);
    expect([...ratesWithoutFeed(['USD'])].map(([c, r]) => [c, r.toString()])).toEqual([['USD', '1']]);
    expect(ratesWithoutFeed([]).size).toBe(0);
  });
});
