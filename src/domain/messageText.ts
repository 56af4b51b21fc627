/**
 * Reading a bank's SMS or push notification into a credit: templates (a sender pattern, a text
 * pattern with named fields, a kind), amounts as banks write them, currencies by their signs.
 * Patterns run on re2 (`re2js`): linear in the text whatever the pattern, so an operator's
 * pattern cannot hold the process on a hostile text; JavaScript's named groups `(?<amount>…)` are
 * re2's own syntax, lookarounds and back-references are refused when the template is saved.
 */
import { RE2JS } from 're2js';
import { Decimal } from 'decimal.js';
import { isIsoCurrency } from './catalogue.js';

export const TEMPLATE_FIELDS = ['amount', 'currency', 'account', 'payer', 'reference', 'bankReference', 'balance'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];
export type TemplateKind = 'credit' | 'debit' | 'other';

/** A template as the reader runs it, operator's or built in. */
export interface TemplateSpec {
  id: string;
  name: string;
  sender: string | null;
  pattern: string;
  kind: TemplateKind;
  currency: string | null;
}

/** A message text is at most 2,000 characters (a long push notification; an SMS is 70 to 160 a part). */
export const MESSAGE_TEXT_MAX = 2000;
/** A pattern is at most 2,000 characters; re2 also bounds the program it compiles to. */
export const PATTERN_MAX = 2000;

const compiled = new Map<string, RE2JS>();

/** A pattern compiled once per process (case-insensitive: banks change case between campaigns). */
function compile(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL);
    if (compiled.size > 5000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** Why a pattern cannot be a template's, or null: re2 syntax, named groups only among the fields. */
export function patternProblem(pattern: string, withFields: boolean): string | null {
  if (pattern.length === 0 || pattern.length > PATTERN_MAX) return `must be 1 to ${PATTERN_MAX} characters`;
  let re: RE2JS;
  try {
    re = compile(pattern);
  } catch (err) {
    return `is not a pattern this gateway runs (${(err as Error).message}); lookarounds and back-references are not supported`;
  }
  const names = Object.keys(re.namedGroups());
  const unknown = names.filter((n) => !(TEMPLATE_FIELDS as readonly string[]).includes(n));
  if (withFields && unknown.length) return `names groups that are no field: ${unknown.join(', ')}; fields are ${TEMPLATE_FIELDS.join(', ')}`;
  return null;
}

/** Currency signs and words as bank messages write them. */
const CURRENCY_SIGNS: readonly [RegExp, string][] = [
  [/^(₽|р\.?|руб\.?|rub|rur)$/i, 'RUB'],
  [/^(₹|rs\.?|inr)$/i, 'INR'],
  [/^(₸|тг\.?|тенге|kzt)$/i, 'KZT'],
  [/^(so['‘’ʻ]?m|сум|uzs)$/i, 'UZS'],
  [/^(₼|azn|man\.?)$/i, 'AZN'],
  [/^(₺|tl|try)$/i, 'TRY'],
  [/^(₩|원|krw)$/i, 'KRW'],
];

/** The ISO code of a currency as a message writes it (`₽`, `Rs.`, `TL`, `원`, `KZT`), or null. */
export function currencyOf(written: string): string | null {
  const w = written.trim();
  for (const [re, code] of CURRENCY_SIGNS) if (re.test(w)) return code;
  const upper = w.toUpperCase();
  return /^[A-Z]{3}$/.test(upper) && isIsoCurrency(upper) ? upper : null;
}

/**
 * An amount as a bank writes it, exactly, to 2 places: `1 500,00`, `1,500.00`, `1.500,00`,
 * `Rs.1,500`, `₹1500`, `KZT 15 000`, `150,000` (KRW). Signs and letters around it are dropped;
 * spaces of any width and apostrophes group thousands. With both `.` and `,` the last one is
 * the decimal mark; with one of them, it is the decimal mark when it stands once with 1 or 2 digits
 * after it, else it groups thousands (`1,500` is fifteen hundred, `1.500` too, as Turkish and
 * Kazakh banks write it). More than 2 decimals, or no digits: null.
 */
export function bankAmount(written: string): string | null {
  const core = /\d[\d\s\u00a0\u2009\u202f'’.,]*/u.exec(written.replace(/^\D*?(?=\d)/u, ''))?.[0];
  if (!core) return null;
  let s = core.replace(/[\s\u00a0\u2009\u202f'’]/gu, '').replace(/[.,]+$/, '');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let decimalMark: '.' | ',' | null = null;
  if (lastDot >= 0 && lastComma >= 0) decimalMark = lastDot > lastComma ? '.' : ',';
  else {
    const mark = lastDot >= 0 ? '.' : lastComma >= 0 ? ',' : null;
    if (mark && s.split(mark).length === 2 && /^\d{1,2}$/.test(s.slice(s.lastIndexOf(mark) + 1))) decimalMark = mark;
  }
  let whole = s;
  let fraction = '';
  if (decimalMark) {
    whole = s.slice(0, s.lastIndexOf(decimalMark));
    fraction = s.slice(s.lastIndexOf(decimalMark) + 1);
  }
  // Groups of thousands are 3 digits (Indian lakhs 2, before the last 3): `1.234.5678` is no amount.
  if (/[.,]/.test(whole) && !/^\d{1,3}(?:[.,]\d{2,3})*[.,]\d{3}$/.test(whole)) return null;
  whole = whole.replace(/[.,]/g, '');
  if (!/^\d+$/.test(whole) || !/^\d{0,2}$/.test(fraction) || whole.length > 15) return null;
  s = fraction ? `${whole}.${fraction}` : whole;
  const d = new Decimal(s);
  return d.gt(0) ? d.toFixed(2) : null;
}

/**
 * An account as a message shows it: full (kept as written) or masked (`XX1234`, `*1234`,
 * `4169****1234`, `110-***-123456`, or 3 to 6 digits alone), made `*{last digits}` so the requisites' lookup takes it as a
 * tail (at least 4 digits).
 */
export function messageAccount(written: string): string {
  const w = written.trim();
  // A few digits alone are the end of an account (`СЧЁТ1234`, `a/c 1234`): no card, account or phone is that short.
  if (/^\d{3,6}$/.test(w)) return `*${w}`;
  if (/[xX*•…]/.test(w) && /\d/.test(w)) {
    const tail = /(\d+)\D*$/.exec(w)?.[1] ?? '';
    return `*${tail}`;
  }
  return w;
}

/** What one template read of a text. */
export interface Reading {
  templateId: string;
  templateName: string;
  kind: TemplateKind;
  fields: Partial<Record<TemplateField, string>>;
  /** The amount exactly, 2 places, or null when the text has none the template could read. */
  amount: string | null;
  currency: string | null;
  account: string | null;
  /** What keeps the reading from being a credit, or null. */
  problem: string | null;
}

/** What may follow an amount at the very end of a text that was cut inside or right after it: separators, spaces, an ellipsis. */
const CUT_AFTER = /^[\s.,'\u00A0\u202F\u2009…]*$/;

/** What `t` reads of a message, or null when its sender or its pattern does not match. */
export function readWith(t: TemplateSpec, sender: string, text: string): Reading | null {
  // `test` asks for no groups and runs on re2's DFA, several times faster than a search with
  // groups: most templates do not match a given text, and only the one that does is searched again.
  if (t.sender !== null && !compile(t.sender).test(sender)) return null;
  if (!compile(t.pattern).test(text)) return null;
  const m = compile(t.pattern).matcher(text);
  if (!m.find()) return null;
  const fields: Partial<Record<TemplateField, string>> = {};
  const groups = compile(t.pattern).namedGroups();
  for (const f of TEMPLATE_FIELDS) {
    if (!(f in groups)) continue;
    const v = m.group(f);
    if (v !== null && v !== undefined && v.trim() !== '') fields[f] = v.trim().slice(0, 255);
  }
  const amount = fields.amount === undefined ? null : bankAmount(fields.amount);
  const currency = t.currency ?? (fields.currency === undefined ? null : currencyOf(fields.currency));
  const account = fields.account === undefined ? null : messageAccount(fields.account);
  let problem: string | null = null;
  if (t.kind === 'credit') {
    if (fields.amount === undefined) problem = 'the template reads no amount';
    else if (amount === null) problem = `"${fields.amount}" is not an amount with at most 2 decimals`;
    else if (fields.currency !== undefined && currency === null && t.currency === null) problem = `"${fields.currency}" is no currency`;
    // A text that ends in its amount may have been cut there (a phone shortens long notifications):
    // «…credited with Rs.475» of «Rs.4750.00» would be a smaller payment, and could pay another order.
    // Such a message waits for a person instead.
    else if (CUT_AFTER.test(text.slice(m.end('amount')))) problem = 'the text ends in its amount: it may have been cut off there';
  }
  return { templateId: t.id, templateName: t.name, kind: t.kind, fields, amount, currency, account, problem };
}

/** Every reading of a text, templates in the order given (the first is the one that counts). */
export function readAll(templates: readonly TemplateSpec[], sender: string, text: string): Reading[] {
  return templates.flatMap((t) => readWith(t, sender, text) ?? []);
}

/** The reading that counts: the first template's that reads the text, or none (what a message becomes; the preview shows them all). */
export function readFirst(templates: readonly TemplateSpec[], sender: string, text: string): Reading[] {
  for (let start = 0; start < templates.length; start += BLOCK) {
    const block = templates.slice(start, start + BLOCK);
    // A block none of whose text patterns matches is passed over with one search of their union.
    if (!mayMatch(block, text)) continue;
    for (const t of block) {
      const r = readWith(t, sender, text);
      if (r) return [r];
    }
  }
  return [];
}

/**
 * Templates are tried in blocks of this many: one search of a block's patterns together (re2's
 * DFA, no groups) rules out the whole block for most texts, where trying each costs a search each.
 */
const BLOCK = 25;
const unions = new Map<string, RE2JS | null>();

/** False only when no text pattern of the block can match (then none of its templates reads the text). */
function mayMatch(block: readonly TemplateSpec[], text: string): boolean {
  const key = block.map((t) => t.pattern).join('\u0001');
  let union = unions.get(key);
  if (union === undefined) {
    try {
      union = RE2JS.compile(block.map((t) => `(?:${unnamed(t.pattern)})`).join('|'), RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL);
    } catch {
      union = null; // too large a program together: each is tried alone
    }
    if (unions.size > 200) unions.clear();
    unions.set(key, union);
  }
  return union === null || union.test(text);
}

/** A pattern with its named groups made plain groups (two patterns may name the same field), escapes and classes respected. */
export function unnamed(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // A `]` first in a class (or after `^`) is a member, not its end.
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') out += pattern[++i];
      continue;
    }
    if (c === '(') {
      const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(pattern.slice(i, i + 40));
      if (named) {
        out += '(?:';
        i += named[0].length - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** Amount written the banks' ways, for the built-in patterns: digits with spaces, dots, commas or apostrophes. */
const AMT = String.raw`\d[\d \x{00A0}\x{202F}\x{2009}'.,]*\d|\d`;
/** An amount as Indian banks write it: commas (lakhs too) and a decimal point, never spaces, so a date after it is not taken in. */
const INR_AMT = String.raw`\d[\d,]*(?:\.\d{1,2})?`;
/** A payer as banks write one: a name and an initial or a surname (`Иван И.`, `AHMET YILMAZ`), any script. */
const NAME = String.raw`\p{L}[\p{L}'\-]*(?:[ \x{00A0}]\p{L}[\p{L}'\-]*)?`;
/** A payer as SBP messages write one: up to three words, the last often an initial (`Владимир Олегович Л`, `ДАВИД АЛЕКСАНДРОВИЧ Ш.`). */
const SBP_NAME = String.raw`\p{L}[\p{L}'\-]*(?:[ \x{00A0}]\p{L}[\p{L}'\-]*){0,2}`;

/**
 * Built-in templates: the common credit messages of large banks for the currencies the rails
 * serve, and the debits, balance notices and one-time codes they send, which are skipped. Their
 * samples are tested in test/unit/messageTemplates.test.ts, and against messages as banks' customers
 * published them (each with its source) in test/unit/messageTemplateSources.test.ts: every credit
 * template here has at least one (a layout nobody has published is not guessed at). Operators'
 * templates are read first.
 */
export const BUILT_IN_TEMPLATES: readonly TemplateSpec[] = [
  // ---- anything that is a one-time code is never money, whatever else it says
  { id: 'tpl_builtin_otp', name: 'One-time codes', sender: null, kind: 'other', currency: null,
    pattern: String.raw`(?:^|\P{L})(?:код|code|OTP|parol|şifre|sifre|kodu|kod)(?:\P{L}|$)|인증번호|никому не сообщайте|do not share` },
  // ---- RUB
  // «Зачисление 1 500 ₽ по СБП от …», «Пополнение +10 110.00 RUB на счет **8577 по СБП от … успешно» (ДОМ.РФ),
  // «Поступление 5000р. … через СБП.» (МТС: the payer before «через СБП» is not read), and СБП before the amount:
  // «*0977 Зачислен перевод по СБП 12264RUB 16:54 от …» (Банк Санкт-Петербург), «СЧЁТ6334 08.05.25 зачислен перевод по
  // СБП 25000р из Альфа-Банк от …» (900). re2 has no conditionals, so «СБП before the amount» is not tied to what follows
  // it: a time or «из <bank>» and then «от» after the amount stand for it. A payer is read only after «от».
  { id: 'tpl_builtin_rub_sbp', name: 'RUB: SBP transfer received', sender: null, kind: 'credit', currency: 'RUB',
    pattern: String.raw`(?:зачислени[ея]|поступлени[ея]|пополнение|(?:зачислен\s+)?перевод(?:\s+по\s+СБП)?)\s+(?:на\s+сумму\s+)?\+?(?<amount>${AMT})\s?(?:₽|р\.?|руб\.?|RUB)(?:[^\n]*?(?:по|через)\s+СБП\s+от|\s+\d{1,2}:\d{2}\s+от|\s+из\s+[^\n]{1,40}?\s+от|[^\n]*?(?:по|через)\s+СБП.*)(?:\s+(?<payer>${SBP_NAME})(?:[.,;]|$))?` },
  // «Перевод СБП от Петра Петровича П. Зачислено 3 000.00 руб.» (DOM.RF): the payer before the amount.
  { id: 'tpl_builtin_rub_sbp_zachisleno', name: 'RUB: SBP transfer from …, Зачислено', sender: null, kind: 'credit', currency: 'RUB',
    pattern: String.raw`Перевод\s+(?:по\s+)?СБП\s+от\s+(?<payer>[^.\n]{1,60}?)\.?\s+Зачислено\s+(?<amount>${AMT})\s?(?:₽|р\.?|руб\.?|RUB)` },
  // 900's SMS: `СЧЁТ1234 [дата] 16:36 Зачисление [зарплаты] 1 000р [от Имя И.] Баланс: …`. A «Перевод» with no
  // balance after it and text that is not a payer («Перевод 3000р на СЧЁТ0406.») is a transfer out, not read.
  { id: 'tpl_builtin_rub_sber', name: 'RUB: Sberbank (900) credit', sender: String.raw`^(900|SberBank|Сбербанк)$`, kind: 'credit', currency: 'RUB',
    pattern: String.raw`(?:[A-ZА-ЯЁ]+-?)?(?<account>\d{4})\s+(?:\d{2}\.\d{2}(?:\.\d{2,4})?\s+)?\d{1,2}:\d{2}\s+(?:зачисление(?:\s+[а-яё]+){0,3}?|перевод(?:\s+по\s+СБП)?(?:\s+из\s+[^+\n]+?)?|поступление)\s+\+?(?<amount>${AMT})\s?(?:р|₽|руб)\.?(?:\s+от\s+(?<payer>${NAME})\.?)?(?:[^\n]*?[.\s]Баланс:?\s*(?<balance>${AMT})\s?(?:р|₽)|\s*$)` },
  { id: 'tpl_builtin_rub_tbank', name: 'RUB: T-Bank top-up', sender: String.raw`^(T-?Bank|Tinkoff|Т-?Банк|Тинькофф)$`, kind: 'credit', currency: 'RUB',
    pattern: String.raw`Пополнение(?:[,.]\s*(?:сч[её]т\s+RUB|карта\s+(?<account>\*\d{4})))?[.,]?\s+(?<amount>${AMT})\s?(?:₽|RUB)[.,]?(?:\s+(?<payer>${NAME})\.)?\s+Доступно\s+(?<balance>${AMT})\s?(?:₽|RUB)` },
  { id: 'tpl_builtin_rub_debit', name: 'RUB: purchases and transfers out', sender: null, kind: 'debit', currency: 'RUB',
    pattern: String.raw`(?:покупка|списание|списано|оплата|выдача|перевод\s+\d[\d\s.,]*\s?(?:₽|р)\s+на\s|перевод\.\s+(?:сч[её]т|карта)\s)` },
  // ---- INR
  { id: 'tpl_builtin_inr_upi_credited', name: 'INR: UPI credited to a/c', sender: null, kind: 'credit', currency: 'INR',
    pattern: String.raw`(?:Rs\.?|INR|₹)\s?(?<amount>${INR_AMT})\s+(?:has\s+been\s+|is\s+)?credited\s+to\s+(?:your\s+)?(?:a/c|acct|account)\s*(?:no\.?\s*)?(?:\.{2,3}|…)?(?<account>[X*]*\d{3,})(?:.*?\b(?:by|from)\s+(?:a/c\s+linked\s+to\s+)?(?:VPA\s+)?(?<payer>[\w.\-]+@[\w.\-]+))?(?:.*?(?:UPI\s*Ref(?:\s*No)?\.?|Ref\s*No\.?|UPI[:/])\s*(?<bankReference>\d{6,}))?` },
  { id: 'tpl_builtin_inr_sbi', name: 'INR: SBI UPI credit', sender: String.raw`SBI`, kind: 'credit', currency: 'INR',
    pattern: String.raw`A/c\s*(?<account>[X*]*\d{3,})[-\s]+credited\s+by\s+Rs\.?\s?(?<amount>${INR_AMT})\s+on\s+\w+\s+(?:(?:by|trf from|transfer from)\s+(?<payer>[^(\n]{1,60}?)\s*)?\(?Ref\s*no\.?\s*(?<bankReference>\d{6,})` },
  // «Money Received - INR …», «Credit Alert! Rs.… credited to HDFC Bank A/c …», «Update! INR … deposited in HDFC Bank A/c …».
  { id: 'tpl_builtin_inr_hdfc', name: 'INR: HDFC money received', sender: String.raw`HDFC`, kind: 'credit', currency: 'INR',
    pattern: String.raw`(?:Money\s+Received\s*-\s*INR|Credit\s+Alert!\s*Rs\.?|Update!\s*INR)\s*(?<amount>${INR_AMT})\s+(?:in\s+(?:your\s+)?|credited\s+to\s+|deposited\s+in\s+)HDFC\s+Bank\s+A/c\s+(?<account>[xX*]*\d{3,})(?:.*?VPA\s+(?<payer>[\w.\-]+@[\w.\-]+))?(?:.*?(?:(?:UPI|IMPS)\s+Ref\s+No\.?|\(UPI)\s*(?<bankReference>\d{6,}))?` },
  { id: 'tpl_builtin_inr_icici', name: 'INR: ICICI account credited', sender: String.raw`ICICI`, kind: 'credit', currency: 'INR',
    pattern: String.raw`(?:ICICI\s+Bank\s+|Dear\s+Customer,\s*(?:your\s+ICICI\s+Bank\s+)?)Acc(?:oun)?t\s+(?<account>[xX*]*\d{3,})\s+(?:is\s+|has\s+been\s+)?credited(?:\s+with)?:?\s*(?:Rs\.?|INR)\s?(?<amount>${INR_AMT})\s+on\s+[\w\-]+(?:(?:;\s*|\s+from\s+)(?<payer>[^.;]{1,60}?)(?:\s+credited)?\.)?(?:.*?(?:UPI:\s*|IMPS\s+Ref\.?\s*no\.?\s*)(?<bankReference>\d{6,}))?` },
  // «Received Rs.250.00 in your Kotak Bank AC X3333 from john.doe@oksbi on 14-10-25.UPI Ref 2222222222» (Kotak and others).
  { id: 'tpl_builtin_inr_received', name: 'INR: Received Rs in your A/c', sender: null, kind: 'credit', currency: 'INR',
    pattern: String.raw`Received\s+(?:Rs\.?|INR|₹)\s?(?<amount>${INR_AMT})\s+(?:on\s+\S+\s+)?in\s+your\s+[A-Za-z ]{0,30}?(?:A/c|AC|account)\s+(?<account>[xX*]*\d{3,})(?:.*?\bfrom\s+(?:VPA\s+)?(?<payer>[\w.\-]+@[\w.\-]+))?(?:.*?(?:UPI|IMPS)\s+Ref(?:\s+no)?\.?:?\s*(?<bankReference>\d{6,}))?` },
  // «Ac XX7582 Credited with Rs.4750.00 … (UPI Ref ID:714628305917)» (PNB), «Your A/C XXXXX648275 is credited with INR 10.00 …» (IDFC).
  { id: 'tpl_builtin_inr_ac_credited', name: 'INR: A/c credited with Rs', sender: null, kind: 'credit', currency: 'INR',
    pattern: String.raw`\b(?:A/c|Ac|Acct|Account)(?:\s+No\.?)?\s*(?<account>[xX*]*\d{3,})\s+(?:is\s+|has\s+been\s+)?credited\s+(?:with|for|by)\s+(?:Rs\.?|INR)[:.]?\s?(?<amount>${INR_AMT})(?:.*?(?:UPI\s+Ref(?:\s+ID)?|IMPS\s+Ref\s+no|Ref\s+no)\.?:?\s*(?<bankReference>\d{6,}))?` },
  { id: 'tpl_builtin_inr_debit', name: 'INR: debits', sender: null, kind: 'debit', currency: 'INR',
    pattern: String.raw`(?:Rs\.?|INR|₹)\s?${AMT}.{0,60}?\bdebited\b|\bdebited\s+(?:by|for|with)\s+(?:Rs\.?|INR|₹|\d)|\bSent\s*-?\s*(?:Rs\.?|INR|₹)` },
  // ---- KZT
  // Kaspi writes tenge as ₸ in pushes and as «т» in its SMS («Пополнение: 8000т»); «Перевод: …т» with a colon is a transfer out.
  { id: 'tpl_builtin_kzt_kaspi', name: 'KZT: Kaspi transfer received', sender: String.raw`Kaspi`, kind: 'credit', currency: 'KZT',
    pattern: String.raw`(?:Пополнение:?|Перевод|Поступление:?)\s+(?:на\s+)?\+?(?<amount>${AMT})\s?(?:₸|(?:тг|т)(?:\P{L}|$))(?:\s*от\s+(?<payer>${NAME}))?` },
  { id: 'tpl_builtin_kzt_halyk', name: 'KZT: Halyk account top-up', sender: String.raw`Halyk|HalykBank|Homebank`, kind: 'credit', currency: 'KZT',
    pattern: String.raw`(?:Пополнение|Зачисление|Поступление|Popolnenie|Zachislenie)(?:\s+\p{L}+){0,2}?[.:\s]+(?:KZT\s+)?(?<amount>${AMT})\s?(?:KZT|₸|тг)?(?:.*?(?:(?:карт[аы]|card)\s*)?(?<account>\*\d{4}))?` },
  { id: 'tpl_builtin_kzt_debit', name: 'KZT: Kaspi and Halyk spending', sender: String.raw`Kaspi|Halyk|HalykBank|Homebank`, kind: 'debit', currency: 'KZT',
    pattern: String.raw`(?:Покупка|Снятие|Перевод|Платеж|Платёж|Оплата|Списание)\s*:\s*\d|Pokupka|Spisanie|Snyatie|Vydacha` },
  // ---- UZS
  // HUMO's Latin SMS: «HUMOCARD *6659: popolnenie 1500000.00 UZS; UZUM BANK Visa to Hu; 26-03-20 02:39; Dostupno: …».
  { id: 'tpl_builtin_uzs_humo_sms', name: 'UZS: HUMO card popolnenie (SMS)', sender: String.raw`HUMO|13131|11313`, kind: 'credit', currency: 'UZS',
    pattern: String.raw`HUMO(?:CARD)?\s*(?<account>\*\d{4}):\s*popolnenie\s+(?<amount>${AMT})\s?UZS(?:;\s*(?<payer>[^;\n]{1,60}?)\s*;)?` },
  // HUMO's bot (HUMOcardbot): «🎉 Пополнение\n➕ 300.000,00 UZS\n📍 …\n💳 HUMOCARD *4428\n🕓 …\n💰 …», Telegram's bold marks
  // (** __) around some lines; CardXabar (Uzcard): «🟢 Popolnenie scheta\n➕ 1 000 000.00 UZS\n💳 ***6451\n📍 …». The amount
  // stands a line below the word.
  { id: 'tpl_builtin_uzs_card', name: 'UZS: HUMO and Uzcard top-up', sender: String.raw`HUMO|UZCARD|Uzcard|cardinfo|13131|11313|CardXabar|Click|Payme`, kind: 'credit', currency: 'UZS',
    pattern: String.raw`(?:Пополнение|Popolnenie|To'ldirish|Hisob\s+to'ldirildi|Зачисление|Perevod na kartu|Поступление)[^\d]{0,30}?(?<amount>${AMT})\s?(?:UZS|сум|so'm)(?:.*?(?<account>(?:HUMO(?:CARD)?|UZCARD)\s*\*\d{4}|\*{2,}\d{4}))?` },
  // ---- AZN
  // «Mədaxil: 150.00 AZN Kart: 4169****1234 …», and the card's SMS with a line each: «Medaxil: 1.10 AZN\n5239**1098\n20:08
  // 30.06.24\nBALANCE\n9.30 AZN», «Medaxil C2C: 10.00 AZN\nBAKU\n5239**1098\n…», «Balans artimi\n4169**2259\nMedaxil\n3.00
  // AZN\n…» (a card before the word is not read: re2 takes a field's name once).
  { id: 'tpl_builtin_azn_medaxil', name: 'AZN: Mədaxil (income)', sender: null, kind: 'credit', currency: 'AZN',
    pattern: String.raw`M[əe]daxil(?:\s+C2C)?:?\s*(?<amount>${AMT})\s?(?:AZN|₼|man)(?:[\s,;]+(?:[^\n*]{0,40}\n)?(?:(?:Kart|Card|Hesab):?\s*)?(?<account>\d[\d*]{3,}\d))?` },
  // Birbank's and ABB mobile's pushes: «Card: **7836 Balance: 30.49₼ ║ 💸 Transfer: +1.00₼», «Kart: … **5223 Balans: 44.27₼ ║ 💸 Köçürmə: +22.00₼».
  { id: 'tpl_builtin_azn_transfer_in', name: 'AZN: card transfer in (Birbank, ABB)', sender: null, kind: 'credit', currency: 'AZN',
    pattern: String.raw`(?:Card|Kart):\s*[^*\n]{0,30}?\*\*(?<account>\d{4})\s*(?:Balance|Balans):\s*(?<balance>${AMT})\s?(?:₼|AZN).{0,20}?(?:Transfer|K[öo]ç[üu]rm[əe]):\s*\+\s*(?<amount>${AMT})\s?(?:₼|AZN)` },
  { id: 'tpl_builtin_azn_debit', name: 'AZN: Məxaric (spending)', sender: null, kind: 'debit', currency: 'AZN',
    pattern: String.raw`M[əe]xaric|Odenis|Ödəniş|(?:Transfer|K[öo]ç[üu]rm[əe]):\s*[-\x{2212}]` },
  // ---- TRY
  // Enpara: «Vadesiz TL hesabınıza 11/05/2026 tarihinde Ismail U tarafından yapılan para transferi (FAST) sonucunda 200,00 TL giriş oldu.»
  { id: 'tpl_builtin_try_transfer_in', name: 'TRY: transfer in, giriş oldu (Enpara)', sender: null, kind: 'credit', currency: 'TRY',
    pattern: String.raw`hesab[ıi]n[ıi]za\s+\d{2}[./]\d{2}[./]\d{4}\s+tarihinde\s+(?<payer>${NAME})\s+taraf[ıi]ndan\s+yap[ıi]lan\s+para\s+transferi\s*(?:\((?:FAST|EFT|HAVALE)\)\s*)?sonucunda\s+(?<amount>${AMT})\s?(?:TL|₺|TRY)\s+giri[şs]\s+oldu` },
  { id: 'tpl_builtin_try_debit', name: 'TRY: card spending', sender: null, kind: 'debit', currency: 'TRY',
    pattern: String.raw`harcama|kartınızdan|kartinizdan|ödeme yapıldı|hesab[ıi]n[ıi]zdan` },
  // ---- KRW
  // A payer is read only after an account (`123456**789 홍길동 입금`); before a bare 입금 stands the bank's name (`농협 입금10,000원`).
  { id: 'tpl_builtin_krw_deposit', name: 'KRW: 입금 (deposit)', sender: null, kind: 'credit', currency: 'KRW',
    pattern: String.raw`(?:(?<account>\d{2,6}[-*]+[\d*-]*\d{2,})\s*(?:(?<payer>[가-힣A-Za-z]{2,10})\s+)?)?입금\s*(?<amount>${AMT})(?:원)?` },
  { id: 'tpl_builtin_krw_debit', name: 'KRW: 출금 (withdrawal)', sender: null, kind: 'debit', currency: 'KRW', pattern: String.raw`출금|승인` },
  // ---- balance notices of any bank
  { id: 'tpl_builtin_balance', name: 'Balance notices', sender: null, kind: 'other', currency: null,
    pattern: String.raw`^\s*(?:Баланс|Остаток|Available balance|Avl Bal|Bakiye|Qalıq|잔액)(?:\P{L}|$)` },
];

/**
 * A first pattern for a message no template reads, for a person to finish: the text itself, its
 * special characters escaped, the first amount made the `amount` field and the other numbers any
 * digits (dates, times and balances change from message to message).
 */
export function draftPattern(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  const amount = /\d[\d \u00a0.,']*\d|\d/u.exec(oneLine);
  const escape = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&').replace(/\d+/g, '\\d+').replace(/ /g, '\\s+');
  if (!amount) return escape(oneLine);
  return `${escape(oneLine.slice(0, amount.index))}(?<amount>${AMT})${escape(oneLine.slice(amount.index + amount[0].length))}`;
}
