import { dec } from './money.js';

/**
 * A merchant's application for approval (web spec, "Asking for approval"): what the business is,
 * where, what it sells and how much it expects to take, and where it stands. The statuses, what
 * each allows, and the rules of every field are declared here once; the cabinet's form, the back
 * office and the operator API ask these.
 */

export const APPLICATION_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/**
 * What may happen to an application in each status. A merchant edits and submits a draft or a
 * rejected application (a rejection is answered by editing and submitting again); an operator
 * rejects only a submitted one; the merchant's approval marks any application approved. `none`:
 * the merchant has not written one yet.
 */
export const APPLICATION_ACTIONS = {
  /** The merchant saves the form without submitting it. */
  save: { from: ['none', 'draft', 'rejected'], to: null },
  /** The merchant submits it for review. */
  submit: { from: ['none', 'draft', 'rejected'], to: 'submitted' },
  /** An operator refuses it, with a reason the merchant reads. */
  reject: { from: ['submitted'], to: 'rejected' },
  /** The merchant is approved (with or without an application): the application is approved with it. */
  approve: { from: ['draft', 'submitted', 'rejected'], to: 'approved' },
} as const satisfies Record<string, { from: readonly (ApplicationStatus | 'none')[]; to: ApplicationStatus | null }>;

export type ApplicationAction = keyof typeof APPLICATION_ACTIONS;

export function applicationAllows(action: ApplicationAction, status: ApplicationStatus | 'none'): boolean {
  return (APPLICATION_ACTIONS[action].from as readonly string[]).includes(status);
}

/** The fields of the form, in the order it shows them; the names are the form's and the API's. */
export const APPLICATION_FIELDS = ['legalName', 'country', 'website', 'description', 'monthlyVolumeUsd', 'contact'] as const;
export type ApplicationField = (typeof APPLICATION_FIELDS)[number];

/** Lengths in characters (Unicode code points after NFC), whatever the script. */
export const APPLICATION_LIMITS = {
  legalName: { min: 2, max: 200 },
  website: { min: 1, max: 2048 },
  description: { min: 20, max: 2000 },
  contact: { min: 3, max: 200 },
  /** An operator's reason for a rejection. */
  reason: { min: 3, max: 1000 },
} as const;

/** At most 13 digits before the point (under ten trillion USD a month) and 2 after. */
const VOLUME = /^(?:0|[1-9]\d{0,12})(?:\.\d{1,2})?$/;

/** The officially assigned ISO 3166-1 alpha-2 codes (249). */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');
const COUNTRIES = new Set(COUNTRY_CODES);

export const isCountryCode = (v: string): boolean => COUNTRIES.has(v);

/** The application's fields as typed (strings; empty or absent: not given). */
export type ApplicationInput = Partial<Record<ApplicationField, string>>;

/** The fields as kept: trimmed, NFC, the country in capitals, the volume a decimal string; null where not given. */
export type ApplicationValues = Record<ApplicationField, string | null>;

export interface FieldProblem {
  field: ApplicationField;
  /** A sentence for a person, naming the field. */
  message: string;
}

/**
 * Characters no field takes: controls (line breaks aside, where a field is multi-line), unassigned
 * and private-use code points, lone surrogates, and the bidirectional overrides and isolates that
 * would make a name read differently in the back office than it is stored.
 */
const FORBIDDEN = /[\p{Cc}\p{Cn}\p{Co}\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
const FORBIDDEN_MULTILINE = /[\p{Cn}\p{Co}\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069]|(?![\n])\p{Cc}/u;
const LETTER = /\p{L}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Length in characters as people count them: code points (an emoji or a CJK character is one). */
export const charCount = (s: string): number => [...s].length;

/** A text as kept: NFC, line breaks as `\n`, trimmed. */
export function cleanText(s: string): string {
  return s.normalize('NFC').replace(/\r\n?/g, '\n').trim();
}

/**
 * An http(s) address with a host that has a dot (a public name, an IDN, or an address), no
 * credentials; null when it is not one.
 */
export function websiteProblem(v: string): string | null {
  if (charCount(v) > APPLICATION_LIMITS.website.max) return `Website: at most ${APPLICATION_LIMITS.website.max} characters`;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return 'Website: an address starting with https:// or http://, such as https://shop.example.com';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'Website: an address starting with https:// or http://, such as https://shop.example.com';
  if (u.username || u.password) return 'Website: an address without a user name or password in it';
  if (!u.hostname.includes('.') || u.hostname.startsWith('.') || u.hostname.endsWith('.')) return 'Website: a full address with its domain, such as https://shop.example.com';
  return null;
}

/**
 * The application's fields checked and cleaned, each problem naming its field. `complete`: every
 * field must be given (a submission); otherwise only the fields given are checked (a draft).
 */
export function checkApplication(input: ApplicationInput, complete: boolean): { values: ApplicationValues; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const values = {} as ApplicationValues;
  const missing: Record<ApplicationField, string> = {
    legalName: 'Legal name: give the business’s registered name',
    country: 'Country: choose where the business is registered',
    website: 'Website: give the address of the business’s site',
    description: 'What you sell: describe the goods or services',
    monthlyVolumeUsd: 'Monthly volume: give the expected amount in USD',
    contact: 'Contact: give a person and how to reach them',
  };
  for (const field of APPLICATION_FIELDS) {
    const raw = input[field];
    const multiline = field === 'description';
    // A multi-line field keeps its line breaks (tabs become spaces); a single-line one has its runs of space made one.
    const v = typeof raw === 'string' ? (multiline ? cleanText(raw.replace(/\t/g, ' ')) : cleanText(raw).replace(/\s+/gu, ' ')) : '';
    values[field] = v === '' ? null : v;
    if (v === '') {
      if (complete) problems.push({ field, message: missing[field] });
      continue;
    }
    const problem = fieldProblem(field, v, multiline);
    if (problem) problems.push({ field, message: problem });
  }
  if (values.country) values.country = values.country.toUpperCase();
  return { values, problems };
}

const LABELS: Record<ApplicationField, string> = {
  legalName: 'Legal name',
  country: 'Country',
  website: 'Website',
  description: 'What you sell',
  monthlyVolumeUsd: 'Monthly volume',
  contact: 'Contact',
};

function lengthProblem(field: 'legalName' | 'description' | 'contact', v: string): string | null {
  const { min, max } = APPLICATION_LIMITS[field];
  const n = charCount(v);
  return n < min || n > max ? `${LABELS[field]}: ${min} to ${max} characters (now ${n})` : null;
}

function fieldProblem(field: ApplicationField, v: string, multiline: boolean): string | null {
  if ((multiline ? FORBIDDEN_MULTILINE : FORBIDDEN).test(v)) return `${LABELS[field]}: contains a character that cannot be shown (a control or direction-override character)`;
  switch (field) {
    case 'legalName':
      return lengthProblem(field, v) ?? (LETTER.test(v) ? null : 'Legal name: must contain letters, in any script');
    case 'description':
      return lengthProblem(field, v) ?? (LETTER.test(v) ? null : 'What you sell: must contain words, in any script');
    case 'contact':
      return lengthProblem(field, v) ?? (LETTER_OR_DIGIT.test(v) ? null : 'Contact: a name, an email or a phone number');
    case 'country':
      return isCountryCode(v.toUpperCase()) ? null : 'Country: an ISO 3166-1 country code, such as DE or KZ';
    case 'website':
      return websiteProblem(v);
    case 'monthlyVolumeUsd':
      if (!VOLUME.test(v)) return 'Monthly volume: an amount in USD with at most 2 decimals, such as 25000 or 1500.50';
      return dec(v).gt(0) ? null : 'Monthly volume: must be greater than zero';
  }
}
