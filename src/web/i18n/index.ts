import { az } from './az.js';
import { en, type MessageKey, type Messages } from './en.js';
import { hi } from './hi.js';
import { kk } from './kk.js';
import { ko } from './ko.js';
import { ru } from './ru.js';
import { tr } from './tr.js';
import { uz } from './uz.js';

/** The payment page's languages, in the switcher's order (web spec: at least these eight). */
export const LANGUAGES = { en, ru, hi, tr, ko, kk, uz, az } as const satisfies Record<string, Messages>;

export type Lang = keyof typeof LANGUAGES;
export const DEFAULT_LANG: Lang = 'en';

export function isLang(v: unknown): v is Lang {
  return typeof v === 'string' && Object.hasOwn(LANGUAGES, v);
}

/**
 * `?lang=` first, then the best `Accept-Language` entry we have (by q-value, primary subtag, so
 * `ru-RU` is `ru`), then English (web spec, "Payment page").
 */
export function chooseLang(query: unknown, acceptLanguage: string | undefined): Lang {
  if (isLang(query)) return query;
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part, i) => {
        const [tag, ...params] = part.trim().split(';');
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        const weight = q === undefined ? 1 : Number(q.slice(2));
        return { primary: (tag ?? '').trim().toLowerCase().split('-')[0], weight: Number.isFinite(weight) ? weight : 0, i };
      })
      .filter((e) => e.weight > 0)
      .sort((a, b) => b.weight - a.weight || a.i - b.i);
    for (const e of ranked) if (isLang(e.primary)) return e.primary;
  }
  return DEFAULT_LANG;
}

export type Translate = (key: MessageKey, vars?: Record<string, string>) => string;

/** A message with its `{name}` placeholders filled; the caller escapes the result like any text. */
export function translator(lang: Lang): Translate {
  const messages: Messages = LANGUAGES[lang];
  return (key, vars) => messages[key].replace(/\{(\w+)\}/g, (m, name: string) => vars?.[name] ?? m);
}

export type { MessageKey, Messages };
