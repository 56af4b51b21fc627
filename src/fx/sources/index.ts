/**
 * The market rate sources named in `FX_SOURCES`, built once from the configuration.
 *
 * Configuration holds each feed's full URL (`FX_CBR_URL=https://www.cbr.ru/scripts/XML_daily.asp`),
 * the form an operator copies from the feed's documentation, while each adapter takes a base URL
 * and appends its fixed feed path. The base is the configured URL with that path cut off the end,
 * so a mirror or a test server may sit under any prefix as long as it serves the feed's own path.
 */
import { ConfigError, type Config } from '../../config.js';
import { DailyXmlFeedSource, type RateSource } from '../source.js';
import { CBR_DAILY_PATH, CBR_FEED } from './cbr.js';
import { ECB_DAILY_PATH, ECB_FEED } from './ecb.js';
import { EXCHANGE_TICKER_PATH, ExchangeTickerRateSource } from './exchangeTicker.js';

/**
 * The base URL an adapter needs so that base + `feedPath` is `url` again. Throws `ConfigError`
 * (naming `variable`) when `url` does not end with the feed's path or carries a query or fragment:
 * the adapter builds the request URL itself, so such a URL could never be fetched as written.
 */
export function feedBaseUrl(variable: string, url: string, feedPath: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(variable, `must be an absolute http(s) URL, got "${url}"`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) {
    throw new ConfigError(variable, `must not carry a query or fragment, got "${url}"`);
  }
  const trimmed = url.replace(/\/+$/, '');
  if (!trimmed.endsWith(feedPath) || !parsed.pathname.replace(/\/+$/, '').endsWith(feedPath)) {
    throw new ConfigError(variable, `must be the feed's URL ending in ${feedPath}, got "${url}"`);
  }
  return trimmed.slice(0, trimmed.length - feedPath.length);
}

/** The configured sources, in `config.fxSources` order (the order of preference). */
export function sourcesFromConfig(config: Config): RateSource[] {
  return config.fxSources.map((name): RateSource => {
    switch (name) {
      case 'cbr':
        return new DailyXmlFeedSource(CBR_FEED, { baseUrl: feedBaseUrl('FX_CBR_URL', config.fxCbrUrl, CBR_DAILY_PATH) });
      case 'ecb':
        return new DailyXmlFeedSource(ECB_FEED, { baseUrl: feedBaseUrl('FX_ECB_URL', config.fxEcbUrl, ECB_DAILY_PATH) });
      case 'ticker':
        return new ExchangeTickerRateSource({ baseUrl: feedBaseUrl('FX_TICKER_URL', config.fxTickerUrl, EXCHANGE_TICKER_PATH) });
      default:
        // parseConfig admits only the names above; another one here is a bug.
        throw new ConfigError('FX_SOURCES', `unknown source "${name}"`);
    }
  });
}
