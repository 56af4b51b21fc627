import type { FastifyReply } from 'fastify';
import { assetUrl } from './assets.js';
import { html, type Html, type Interpolation } from './html.js';

/**
 * The document shell every page shares (payment page now, cabinet and back office later): one
 * stylesheet and scripts by URL, never inline, so the CSP below can forbid inline code.
 */
export interface PageShell {
  lang: string;
  title: string;
  body: Interpolation;
  /** Stylesheet file names under src/web/assets. */
  styles?: readonly string[];
  /** Script file names under src/web/assets, loaded with `defer`. */
  scripts?: readonly string[];
  /** Extra head elements: a <noscript> refresh, robots rules. */
  head?: Interpolation;
  /** data-* attributes on <body> the scripts read (values escaped like any other). */
  data?: Record<string, string | null | undefined>;
}

export function document(p: PageShell): Html {
  const data = Object.entries(p.data ?? {})
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => html` data-${k}="${v}"`);
  return html`<!doctype html>
<html lang="${p.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${p.title}</title>
<link rel="icon" href="${assetUrl('favicon.svg')}" type="image/svg+xml">
${(p.styles ?? []).map((s) => html`<link rel="stylesheet" href="${assetUrl(s)}">\n`)}${(p.scripts ?? []).map((s) => html`<script src="${assetUrl(s)}" defer></script>\n`)}${p.head}
</head>
<body${data}>
${p.body}
</body>
</html>
`;
}

/**
 * Content-Security-Policy of every page: only our own scripts, styles, images and requests; no
 * inline script or style; forms post to ourselves only; never framed.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sends a page with the security headers every HTML answer carries. Pages hold payment details: never cached. */
export function sendPage(reply: FastifyReply, status: number, page: Html): FastifyReply {
  return reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', PAGE_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .send(page.value);
}
