<?php

declare(strict_types=1);

namespace Paygate;

use Closure;
use Generator;
use Paygate\Attribute\InQuery;
use Paygate\Attribute\Operation;
use Paygate\Http\CurlTransport;
use Paygate\Http\NetworkException;
use Paygate\Http\Transport;
use Paygate\Model\Balance;
use Paygate\Model\Event;
use Paygate\Model\EventsPage;
use Paygate\Model\Methods;
use Paygate\Model\Rates;

/**
 * Client of the gateway API (`/gw/v1`) for one cash desk: every call signed with the desk's secret,
 * a fresh nonce per attempt, errors as `PaygateException`.
 *
 * Retries: reads and order creation with an `orderRef` (idempotent for an hour) are repeated after
 * a network failure; order creation with an `orderRef` also after `503` (`NO_AVAILABLE_METHOD`);
 * exponential back-off with jitter. Calls that change something without such a key (order creation
 * without `orderRef`, cancel, appeals, webhook endpoint changes) are sent once. An
 * `AUTH_TIMESTAMP_SKEW` answer is followed by one more signed attempt at the gateway's clock, read
 * from the answer's `Date` header, and the offset is kept for later calls.
 */
final class Client
{
    public readonly Orders $orders;
    public readonly Appeals $appeals;
    public readonly WebhookEndpoints $webhookEndpoints;

    private readonly string $baseUrl;
    private readonly Transport $transport;
    private readonly Closure $now;
    private readonly Closure $sleep;
    private readonly Closure $random;
    /** Gateway clock minus local clock in seconds, learnt from `Date` after an `AUTH_TIMESTAMP_SKEW`. */
    private float $clockOffset = 0.0;

    /**
     * @param string $baseUrl where the gateway is, e.g. `https://pay.example.com` (without `/gw/v1`)
     * @param string $key cash desk key (`shp_…`)
     * @param string $secret cash desk secret, shown once when the desk was created
     * @param int $maxAttempts attempts in all for a call that is safe to repeat
     * @param int $retryBaseMs first back-off delay, doubled per attempt, scaled by a random factor in [0.5, 1)
     * @param float $timeout seconds per request; the default 180 is above the gateway's 160 s provider
     *                       cascade, so an order creation is not abandoned while it is being placed
     * @param Transport|null $transport how requests are sent (default: ext-curl)
     * @param (Closure(): float)|null $now seconds since the epoch (default `microtime(true)`)
     * @param (Closure(int): void)|null $sleep waits the given milliseconds (default `usleep`)
     * @param (Closure(): float)|null $random a number in [0, 1) for the back-off jitter
     */
    public function __construct(
        string $baseUrl,
        private readonly string $key,
        #[\SensitiveParameter] private readonly string $secret,
        private readonly int $maxAttempts = 3,
        private readonly int $retryBaseMs = 500,
        private readonly float $timeout = 180.0,
        ?Transport $transport = null,
        ?Closure $now = null,
        ?Closure $sleep = null,
        ?Closure $random = null,
    ) {
        if ($baseUrl === '' || $key === '' || $secret === '') {
            throw new \InvalidArgumentException('Paygate: baseUrl, key and secret are required');
        }
        if (preg_match('#^https?://#i', $baseUrl) !== 1) {
            throw new \InvalidArgumentException("Paygate: baseUrl \"{$baseUrl}\" must start with https:// or http://");
        }
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->transport = $transport ?? new CurlTransport();
        $this->now = $now ?? static fn (): float => microtime(true);
        $this->sleep = $sleep ?? static function (int $ms): void {
            usleep($ms * 1000);
        };
        $this->random = $random ?? static fn (): float => random_int(0, PHP_INT_MAX - 1) / PHP_INT_MAX;
        $call = Closure::fromCallable([$this, 'call']);
        $this->orders = new Orders($call);
        $this->appeals = new Appeals($call);
        $this->webhookEndpoints = new WebhookEndpoints($call);
    }

    /** What the cash desk can accept now. */
    #[Operation('getMethods')]
    public function methods(): Methods
    {
        return Methods::fromArray($this->call('GET', '/gw/v1/methods', [], null, RetryPolicy::Network));
    }

    /** Rates of the currencies the desk allows, or of one of them. */
    #[Operation('getRates')]
    public function rates(#[InQuery] ?string $currency = null): Rates
    {
        return Rates::fromArray($this->call('GET', '/gw/v1/rates', ['currency' => $currency], null, RetryPolicy::Network));
    }

    /** The merchant's balance (USD, shared by its desks). */
    #[Operation('getBalance')]
    public function balance(): Balance
    {
        return Balance::fromArray($this->call('GET', '/gw/v1/balance', [], null, RetryPolicy::Network));
    }

    /**
     * One page of the events feed, oldest first.
     *
     * @param string|null $after an event id: only events after it (null: from the oldest)
     * @param string|null $orderId only this order's events (`ord_` id or orderRef)
     * @param bool|null $delivered false: only events whose callback was not acknowledged with 200
     * @param int|null $limit 1 to 500, default 100
     */
    #[Operation('listEvents')]
    public function eventsPage(
        #[InQuery] ?string $after = null,
        #[InQuery] ?string $orderId = null,
        #[InQuery] ?bool $delivered = null,
        #[InQuery] ?int $limit = null,
    ): EventsPage {
        $query = [
            'after' => $after,
            'orderId' => $orderId,
            'delivered' => $delivered === false ? 'false' : null,
            'limit' => $limit === null ? null : (string) $limit,
        ];
        return EventsPage::fromArray($this->call('GET', '/gw/v1/events', $query, null, RetryPolicy::Network));
    }

    /**
     * Every event after `$after` (from the oldest when null), oldest first, page after page while
     * the feed has more. Remember the id of the last event you processed and pass it next time.
     *
     * @return Generator<int, Event>
     */
    public function events(?string $after = null, ?string $orderId = null, ?bool $delivered = null, ?int $limit = null): Generator
    {
        for (;;) {
            $page = $this->eventsPage($after, $orderId, $delivered, $limit);
            foreach ($page->events as $event) {
                yield $event;
            }
            if (!$page->hasMore || $page->next === null) {
                return;
            }
            $after = $page->next;
        }
    }

    /**
     * Signs and sends one call, repeating it as its policy allows; answers the envelope's `result`.
     *
     * @param array<string, string|null> $query
     * @return array<mixed>
     */
    private function call(string $method, string $path, array $query, ?string $body, RetryPolicy $retry): array
    {
        $query = array_filter($query, static fn ($v) => $v !== null);
        $url = $this->baseUrl . $path . ($query === [] ? '' : '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986));
        $skewRetried = false;
        for ($attempt = 1; ; $attempt++) {
            try {
                $response = $this->transport->send($method, $url, $this->headers($method, $path, $body), $body, $this->timeout);
            } catch (NetworkException $e) {
                if ($retry !== RetryPolicy::Never && $attempt < $this->maxAttempts) {
                    $this->backOff($attempt);
                    continue;
                }
                throw new PaygateException(0, 'NETWORK_ERROR', $e->getMessage(), previous: $e);
            }
            $traceHeader = $response->header('x-trace-id');
            if ($response->status === 429) {
                $ra = $response->header('retry-after');
                $retryAfter = $ra !== null && preg_match('/^\d{1,9}$/D', trim($ra)) === 1 ? (int) trim($ra) : null;
                throw new PaygateException(429, 'RATE_LIMITED', null, $traceHeader, $retryAfter);
            }
            $parsed = null;
            if ($response->body !== '') {
                try {
                    $decoded = json_decode($response->body, true, 512, JSON_THROW_ON_ERROR);
                    $parsed = is_array($decoded) ? $decoded : null;
                } catch (\JsonException) {
                    $parsed = null;
                }
            }
            if ($response->status >= 200 && $response->status < 300 && ($parsed['status'] ?? null) === 'ok') {
                $result = $parsed['result'] ?? [];
                return is_array($result) ? $result : [];
            }
            $fault = is_array($parsed['fault'] ?? null) ? $parsed['fault'] : [];
            $code = is_string($fault['code'] ?? null) ? $fault['code'] : 'HTTP_' . $response->status;
            $detail = is_string($fault['detail'] ?? null) ? $fault['detail'] : ($parsed === null ? self::startOf($response->body) : null);
            $traceId = is_string($parsed['traceId'] ?? null) ? $parsed['traceId'] : $traceHeader;
            if ($code === 'AUTH_TIMESTAMP_SKEW' && !$skewRetried) {
                // Our clock is off by more than 300 s: learn the gateway's from its Date header and sign again.
                $serverTime = strtotime((string) $response->header('date'));
                if ($serverTime !== false && $response->header('date') !== null) {
                    $this->clockOffset = $serverTime - ($this->now)();
                    $skewRetried = true;
                    $attempt--;
                    continue;
                }
            }
            if ($response->status === 503 && $retry === RetryPolicy::NetworkAnd503 && $attempt < $this->maxAttempts) {
                $this->backOff($attempt);
                continue;
            }
            throw new PaygateException($response->status, $code, $detail, $traceId);
        }
    }

    /** @return array<string, string> */
    private function headers(string $method, string $path, ?string $body): array
    {
        $ts = (string) (int) floor(($this->now)() + $this->clockOffset);
        $nonce = Signing::newNonce();
        $headers = [
            'X-Gate-Key' => $this->key,
            'X-Gate-Ts' => $ts,
            'X-Gate-Nonce' => $nonce,
            'X-Gate-Sign' => Signing::signRequest($this->secret, $ts, $nonce, $method, $path, $body ?? ''),
            'Accept' => 'application/json',
            'User-Agent' => 'paygate-php/' . self::VERSION,
        ];
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
        }
        return $headers;
    }

    public const VERSION = '0.1.0';

    /** The start of a page that is not the gateway's JSON (a proxy's error page): 300 characters. */
    private static function startOf(string $text): ?string
    {
        if ($text === '') {
            return null;
        }
        if (preg_match('/^.{0,300}/su', $text, $m) === 1) {
            return $m[0];
        }
        return substr($text, 0, 300);
    }

    private function backOff(int $attempt): void
    {
        $ms = $this->retryBaseMs * (2 ** ($attempt - 1)) * (0.5 + ($this->random)() / 2);
        ($this->sleep)((int) round($ms));
    }
}
