<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Callbacks;
use Paygate\Client;
use Paygate\Model\OrderCreated;
use Paygate\PaygateException;
use Paygate\Signing;
use Paygate\StandardWebhooks;
use Paygate\Tests\Support\FakeServer;
use PHPUnit\Framework\TestCase;

/**
 * The SDK without a gateway: the published signing vectors, callback and Standard Webhooks
 * verification, and the client's behaviour against scripted servers on real sockets.
 * A test that covers a shared scenario names it with `@scenario <id>`, and its method name is
 * `test_` followed by the id with `-` written `_`.
 */
final class OfflineTest extends TestCase
{
    private const SECRET = 'sk_test_9f8e7d6c5b4a';
    private const C1_BODY = '{"event":"order.completed","id":"ord_abc","orderRef":"inv-1001","status":"Completed","amount":{"value":"1500.50","currency":"RUB"},"settled":{"value":"16.34531590","currency":"USD","rate":"91.80000000"},"method":"Classic","rail":"Sbp","occurredAt":"2025-11-21T04:00:00.123Z"}';
    private const C1_HEADERS = ['X-Gate-Ts' => '1763700000', 'X-Gate-Event-Id' => 'evt_01', 'X-Gate-Sign' => 'd8b62d6bdcb3915e556e971a63ea34c38d9f359d18a42dd91e1599822ee16e4b'];

    /** @var list<FakeServer> */
    private array $servers = [];
    /** @var list<int> */
    private array $sleeps = [];

    protected function tearDown(): void
    {
        foreach ($this->servers as $s) {
            $s->stop();
        }
    }

    /** @param list<array<string, mixed>> $script */
    private function server(array $script): FakeServer
    {
        return $this->servers[] = new FakeServer($script);
    }

    private function client(FakeServer $server, float $timeout = 5.0, string $secret = self::SECRET): Client
    {
        return new Client(
            $server->url,
            'shp_test0000000000000000000000',
            $secret,
            timeout: $timeout,
            sleep: function (int $ms): void {
                $this->sleeps[] = $ms;
            },
        );
    }

    private static function order(): array
    {
        return [
            'id' => 'ord_01', 'orderRef' => null, 'amount' => '1500.50', 'currency' => 'RUB',
            'settled' => ['amount' => '16.34531590', 'currency' => 'USD', 'rate' => '91.80000000'],
            'method' => 'Classic', 'rail' => 'Sbp', 'direction' => 'In', 'status' => 'Created',
            'payment' => ['url' => null, 'card' => null, 'phone' => '+79990000000', 'account' => null, 'iban' => null, 'upiId' => null, 'holder' => 'Ivan I.', 'bank' => 'Bank'],
            'createdAt' => '2026-01-15T12:00:00Z', 'expiresAt' => '2026-01-15T12:15:00Z', 'sandbox' => true, 'payPageUrl' => 'https://pay.example/pay/ord_01',
        ];
    }

    /** @scenario vector-request-signature */
    public function test_vector_request_signature(): void
    {
        self::assertSame('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', Signing::sha256Hex(''));
        $v1 = '{"amount":1500.5,"currency":"RUB","rail":"Sbp","orderRef":"inv-1001"}';
        self::assertSame('80d4e8f37b5dc77abde49dc46bd034024850f1e2fa1b53541009251ea152ebda', Signing::signRequest(self::SECRET, '1763700000', 'n0nce-0001', 'POST', '/gw/v1/orders', $v1));
        // V2: a GET with a query string signs the bare path.
        self::assertSame('1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3', Signing::signRequest(self::SECRET, '1763700000', 'n0nce-0002', 'GET', '/gw/v1/rates?currency=RUB', ''));
        self::assertSame('1da997e5a4ab6b9b0cc011e63ea12df327f40727c91c461e0197e64560d746e3', Signing::signRequest(self::SECRET, '1763700000', 'n0nce-0002', 'get', '/gw/v1/rates', ''));
        // V3: a secret and a body outside ASCII, as UTF-8 bytes.
        self::assertSame('6f79f9b2b9cbe142e0ecddb13d0ba7be4dde331345626e2c7da42ab3fde4dbda', Signing::signRequest('секрет-ключ', '1763700000', 'n0nce-0003', 'POST', '/gw/v1/orders/ord_abc/cancel', '{"reason":"клиент ушёл"}'));

        // The client sends exactly the V1 body for the same fields, and the V3 body for a cancel.
        $server = $this->server([FakeServer::ok(201, self::order()), FakeServer::ok(200, self::order() + ['subStatus' => 'Cancelled'])]);
        $client = $this->client($server);
        $client->orders->create(amount: 1500.5, currency: 'RUB', rail: 'Sbp', orderRef: 'inv-1001');
        $client->orders->cancel('ord_abc', 'клиент ушёл');
        [$create, $cancel] = $server->requests();
        self::assertSame($v1, $create['body']);
        self::assertSame('{"reason":"клиент ушёл"}', $cancel['body']);
        self::assertSame('/gw/v1/orders/ord_abc/cancel', $cancel['target']);
        foreach ([$create, $cancel] as $r) {
            $h = $r['headers'];
            self::assertSame(Signing::signRequest(self::SECRET, $h['x-gate-ts'], $h['x-gate-nonce'], $r['method'], $r['target'], $r['body']), $h['x-gate-sign']);
            self::assertSame('shp_test0000000000000000000000', $h['x-gate-key']);
            self::assertMatchesRegularExpression('/^\d{10}$/', $h['x-gate-ts']);
            self::assertGreaterThanOrEqual(8, strlen($h['x-gate-nonce']));
            self::assertLessThanOrEqual(128, strlen($h['x-gate-nonce']));
            self::assertSame('application/json', $h['content-type']);
        }
        self::assertNotSame($create['headers']['x-gate-nonce'], $cancel['headers']['x-gate-nonce']);
    }

    public function test_a_decimal_string_amount_is_sent_digit_for_digit_and_the_query_is_not_signed(): void
    {
        $server = $this->server([FakeServer::ok(201, self::order()), FakeServer::ok(200, ['settlement' => 'USD', 'rates' => [['code' => 'RUB', 'rate' => '91.80000000', 'priceable' => true]]])]);
        $client = $this->client($server);
        $client->orders->create(amount: '1500.50', rail: 'Sbp');
        $rates = $client->rates('RUB');
        [$create, $read] = $server->requests();
        self::assertSame('{"amount":1500.50,"rail":"Sbp"}', $create['body']);
        self::assertSame('/gw/v1/rates?currency=RUB', $read['target']);
        $h = $read['headers'];
        self::assertSame(Signing::signRequest(self::SECRET, $h['x-gate-ts'], $h['x-gate-nonce'], 'GET', '/gw/v1/rates', ''), $h['x-gate-sign']);
        self::assertArrayNotHasKey('content-type', $h);
        self::assertSame('91.80000000', $rates->rates[0]->rate);
        $this->expectException(\InvalidArgumentException::class);
        $client->orders->create(amount: '1,500.50');
    }

    /** @scenario vector-callback-signature */
    public function test_vector_callback_signature(): void
    {
        self::assertSame(self::C1_HEADERS['X-Gate-Sign'], Signing::signCallback(self::SECRET, '1763700000', 'evt_01', self::C1_BODY));
        $event = Callbacks::verify(self::C1_BODY, self::C1_HEADERS, self::SECRET, now: 1763700000);
        self::assertSame('order.completed', $event->event);
        self::assertSame('ord_abc', $event->id);
        self::assertSame('inv-1001', $event->orderRef);
        self::assertSame('1500.50', $event->amount->value);
        self::assertSame('16.34531590', $event->settled->value);
        self::assertSame('91.80000000', $event->settled->rate);
        // Headers as $_SERVER holds them, and an upper-case signature, verify too.
        $server = ['HTTP_X_GATE_TS' => '1763700000', 'HTTP_X_GATE_EVENT_ID' => 'evt_01', 'HTTP_X_GATE_SIGN' => strtoupper(self::C1_HEADERS['X-Gate-Sign'])];
        self::assertSame('ord_abc', Callbacks::verify(self::C1_BODY, $server, self::SECRET, now: 1763700000)->id);

        $changed = self::C1_BODY;
        $changed[10] = chr(ord($changed[10]) ^ 1);
        $e = self::refusal(fn () => Callbacks::verify($changed, self::C1_HEADERS, self::SECRET, now: 1763700000));
        self::assertSame('CALLBACK_SIGNATURE_MISMATCH', $e->code);
        self::assertSame(400, $e->status);
        self::assertSame('CALLBACK_SIGNATURE_MISMATCH', self::refusal(fn () => Callbacks::verify(self::C1_BODY, self::C1_HEADERS, self::SECRET . 'x', now: 1763700000))->code);
        self::assertSame('CALLBACK_HEADERS_MISSING', self::refusal(fn () => Callbacks::verify(self::C1_BODY, ['X-Gate-Ts' => '1763700000'], self::SECRET, now: 1763700000))->code);
        self::assertSame('CALLBACK_TIMESTAMP_INVALID', self::refusal(fn () => Callbacks::verify(self::C1_BODY, ['X-Gate-Ts' => '2025-11-21T04:00:00Z'] + self::C1_HEADERS, self::SECRET, now: 1763700000))->code);
        self::assertSame('CALLBACK_SECRET_MISSING', self::refusal(fn () => Callbacks::verify(self::C1_BODY, self::C1_HEADERS, '', now: 1763700000))->code);
    }

    /** @scenario callback-replayed-later */
    public function test_callback_replayed_later(): void
    {
        $hourLater = self::refusal(fn () => Callbacks::verify(self::C1_BODY, self::C1_HEADERS, self::SECRET, now: 1763700000 + 3600));
        self::assertSame('CALLBACK_TIMESTAMP_STALE', $hourLater->code);
        self::assertStringContainsString('3600 s old', (string) $hourLater->detail);
        $ahead = self::refusal(fn () => Callbacks::verify(self::C1_BODY, self::C1_HEADERS, self::SECRET, now: 1763700000 - 600));
        self::assertSame('CALLBACK_TIMESTAMP_STALE', $ahead->code);
        self::assertStringContainsString('in the future', (string) $ahead->detail);
        // Inside the 300 s tolerance either way it verifies.
        self::assertSame('ord_abc', Callbacks::verify(self::C1_BODY, self::C1_HEADERS, self::SECRET, now: 1763700000 + 300)->id);
        self::assertSame('ord_abc', Callbacks::verify(self::C1_BODY, self::C1_HEADERS, self::SECRET, now: 1763700000 - 300)->id);
    }

    /** @scenario standard-webhook-verify */
    public function test_standard_webhook_verify(): void
    {
        // The Standard Webhooks specification's own example.
        $secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
        $headers = ['webhook-id' => 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp' => '1614265330', 'webhook-signature' => 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='];
        $message = StandardWebhooks::verify('{"test": 2432232314}', $headers, $secret, now: 1614265330);
        self::assertSame('msg_p5jXN8AQM9LWM0D4loKWxJek', $message->id);

        // A delivery as the gateway sends it: the callback's object as data.
        $body = '{"type":"order.completed","timestamp":"2025-11-21T04:00:00.123Z","data":' . self::C1_BODY . '}';
        $now = 1763700000;
        $headers = ['Webhook-Id' => 'evt_01', 'Webhook-Timestamp' => (string) $now, 'Webhook-Signature' => StandardWebhooks::signature($secret, 'evt_01', (string) $now, $body)];
        $message = StandardWebhooks::verify($body, $headers, $secret, now: $now);
        self::assertSame('order.completed', $message->type);
        self::assertSame('evt_01', $message->id);
        self::assertSame('ord_abc', $message->callbackEvent()->id);
        self::assertSame('16.34531590', $message->callbackEvent()->settled->value);

        $tampered = str_replace('1500.50', '1500.51', $body);
        self::assertSame('CALLBACK_SIGNATURE_MISMATCH', self::refusal(fn () => StandardWebhooks::verify($tampered, $headers, $secret, now: $now))->code);
        $other = 'whsec_' . base64_encode(random_bytes(32));
        self::assertSame('CALLBACK_SIGNATURE_MISMATCH', self::refusal(fn () => StandardWebhooks::verify($body, $headers, $other, now: $now))->code);
        $stale = self::refusal(fn () => StandardWebhooks::verify($body, $headers, $secret, now: $now + 3600));
        self::assertSame('CALLBACK_TIMESTAMP_STALE', $stale->code);
        self::assertSame('CALLBACK_HEADERS_MISSING', self::refusal(fn () => StandardWebhooks::verify($body, ['webhook-id' => 'evt_01'], $secret, now: $now))->code);
        self::assertSame('CALLBACK_SECRET_INVALID', self::refusal(fn () => StandardWebhooks::verify($body, $headers, 'whsec_***', now: $now))->code);

        // During a rotation both signatures travel, separated by a space: either secret verifies.
        $rotated = $headers;
        $rotated['Webhook-Signature'] = StandardWebhooks::signature($other, 'evt_01', (string) $now, $body) . ' ' . $headers['Webhook-Signature'];
        self::assertSame('evt_01', StandardWebhooks::verify($body, $rotated, $secret, now: $now)->id);
        self::assertSame('evt_01', StandardWebhooks::verify($body, $rotated, $other, now: $now)->id);
        $third = 'whsec_' . base64_encode(random_bytes(24));
        self::assertSame('CALLBACK_SIGNATURE_MISMATCH', self::refusal(fn () => StandardWebhooks::verify($body, $rotated, $third, now: $now))->code);
        // Signatures of other versions are not taken for v1.
        $v2 = $headers;
        $v2['Webhook-Signature'] = 'v1a,' . substr($headers['Webhook-Signature'], 3);
        self::assertSame('CALLBACK_SIGNATURE_MISMATCH', self::refusal(fn () => StandardWebhooks::verify($body, $v2, $secret, now: $now))->code);
    }

    /** @scenario non-json-answer */
    public function test_non_json_answer(): void
    {
        $page = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>' . str_repeat(' ', 400);
        $server = $this->server([['status' => 502, 'headers' => ['Content-Type' => 'text/html'], 'body' => $page]]);
        $e = self::refusal(fn () => $this->client($server)->balance());
        self::assertSame(502, $e->status);
        self::assertSame('HTTP_502', $e->code);
        self::assertStringStartsWith('<html><head><title>502 Bad Gateway', (string) $e->detail);
        self::assertSame(300, strlen((string) $e->detail));
        self::assertCount(1, $server->requests());
    }

    public function test_a_gateway_refusal_and_a_rate_limit_arrive_with_their_fields(): void
    {
        $server = $this->server([
            FakeServer::fault(404, 'ORDER_NOT_FOUND', 'no order ord_x', 'trc_404'),
            ['status' => 429, 'headers' => ['Retry-After' => '7', 'X-Trace-Id' => 'trc_429'], 'body' => ''],
        ]);
        $client = $this->client($server);
        $e = self::refusal(fn () => $client->orders->get('ord_x'));
        self::assertSame([404, 'ORDER_NOT_FOUND', 'no order ord_x', 'trc_404'], [$e->status, $e->code, $e->detail, $e->traceId]);
        self::assertSame('ORDER_NOT_FOUND', $e->getCode());
        self::assertStringContainsString('trc_404', $e->getMessage());
        $limited = self::refusal(fn () => $client->orders->create(amount: 1, orderRef: 'r-429'));
        self::assertSame([429, 'RATE_LIMITED', 7, 'trc_429'], [$limited->status, $limited->code, $limited->retryAfter, $limited->traceId]);
        self::assertCount(2, $server->requests());
    }

    /** @scenario timeout */
    public function test_timeout(): void
    {
        $server = $this->server([['hang' => true], ['hang' => true]]);
        $started = microtime(true);
        $e = self::refusal(fn () => $this->client($server, timeout: 0.5)->orders->create(amount: 100, rail: 'Sbp'));
        $took = microtime(true) - $started;
        self::assertSame(0, $e->status);
        self::assertSame('NETWORK_ERROR', $e->code);
        self::assertGreaterThanOrEqual(0.45, $took);
        self::assertLessThan(3.0, $took);
        usleep(200_000);
        self::assertCount(1, $server->requests(), 'a create without orderRef is sent once');
        self::assertSame([], $this->sleeps);
    }

    /** @scenario retry-503 */
    public function test_retry_503(): void
    {
        // With an orderRef: 503, then 201; each attempt signed with a nonce of its own.
        $server = $this->server([FakeServer::fault(503, 'NO_AVAILABLE_METHOD', 'no provider currently accepts Sbp RUB'), FakeServer::ok(201, self::order())]);
        $order = $this->client($server)->orders->create(amount: 1500.5, rail: 'Sbp', orderRef: 'inv-503');
        self::assertInstanceOf(OrderCreated::class, $order);
        self::assertSame('ord_01', $order->id);
        $requests = $server->requests();
        self::assertCount(2, $requests);
        self::assertSame($requests[0]['body'], $requests[1]['body']);
        self::assertNotSame($requests[0]['headers']['x-gate-nonce'], $requests[1]['headers']['x-gate-nonce']);
        self::assertCount(1, $this->sleeps);
        self::assertGreaterThanOrEqual(250, $this->sleeps[0]);
        self::assertLessThanOrEqual(500, $this->sleeps[0]);

        // Without an orderRef the 503 is the answer: sent once.
        $server = $this->server([FakeServer::fault(503, 'NO_AVAILABLE_METHOD', 'no provider'), FakeServer::ok(201, self::order())]);
        $e = self::refusal(fn () => $this->client($server)->orders->create(amount: 1500.5, rail: 'Sbp'));
        self::assertSame([503, 'NO_AVAILABLE_METHOD'], [$e->status, $e->code]);
        self::assertCount(1, $server->requests());

        // A read after a dropped connection is repeated.
        $this->sleeps = [];
        $server = $this->server([['drop' => true], FakeServer::ok(200, ['currency' => 'USD', 'available' => '12.50000000', 'mode' => 'sandbox'])]);
        $balance = $this->client($server)->balance();
        self::assertSame('12.50000000', $balance->available);
        self::assertCount(2, $server->requests());
        self::assertCount(1, $this->sleeps);

        // Three attempts in all, then the network error; back-off doubles.
        $this->sleeps = [];
        $server = $this->server([['drop' => true], ['drop' => true], ['drop' => true], ['drop' => true]]);
        $e = self::refusal(fn () => $this->client($server)->methods());
        self::assertSame([0, 'NETWORK_ERROR'], [$e->status, $e->code]);
        self::assertCount(3, $server->requests());
        self::assertCount(2, $this->sleeps);
        self::assertGreaterThanOrEqual(500, $this->sleeps[1]);

        // A cancel after a dropped connection is not repeated.
        $server = $this->server([['drop' => true], FakeServer::ok(200, self::order())]);
        self::assertSame('NETWORK_ERROR', self::refusal(fn () => $this->client($server)->orders->cancel('ord_01'))->code);
        self::assertCount(1, $server->requests());
    }

    public function test_the_clock_is_learnt_from_the_date_header_once(): void
    {
        $serverNow = 1763700000;
        $date = gmdate('D, d M Y H:i:s \G\M\T', $serverNow);
        $server = $this->server([
            ['status' => 401, 'headers' => ['Date' => $date], 'body' => json_encode(['status' => 'error', 'fault' => ['code' => 'AUTH_TIMESTAMP_SKEW', 'detail' => 'off'], 'traceId' => 't'])],
            FakeServer::ok(200, ['currency' => 'USD', 'available' => '0.00000000', 'mode' => 'sandbox']),
            FakeServer::ok(200, ['currency' => 'USD', 'available' => '0.00000000', 'mode' => 'sandbox']),
        ]);
        $client = new Client($server->url, 'shp_test0000000000000000000000', self::SECRET, now: static fn (): float => 1763700000 - 600.0);
        $client->balance();
        $client->balance();
        $ts = array_map(static fn ($r) => $r['headers']['x-gate-ts'], $server->requests());
        self::assertSame(['1763699400', '1763700000', '1763700000'], $ts);
    }

    public function test_webhook_endpoint_calls_send_what_they_name(): void
    {
        $endpoint = ['id' => 'whe_1', 'url' => 'https://erp.example/hooks', 'events' => ['*'], 'desks' => null, 'description' => null, 'enabled' => true, 'disabledReason' => null, 'createdAt' => '2026-01-15T12:00:00Z', 'updatedAt' => '2026-01-15T12:00:00Z'];
        $server = $this->server([
            FakeServer::ok(200, $endpoint),
            FakeServer::ok(200, $endpoint),
            FakeServer::ok(200, ['requeued' => 3, 'since' => '2026-01-15T11:00:00Z']),
            FakeServer::ok(200, ['attempts' => [['id' => '42', 'eventId' => 'evt_1', 'type' => 'order.completed', 'attempt' => 1, 'at' => '2026-01-15T12:00:00Z', 'outcome' => 'delivered', 'statusCode' => 204, 'durationMs' => 12, 'error' => null, 'nextAttemptAt' => null]], 'hasMore' => true, 'next' => '42']),
            FakeServer::ok(200, ['endpoints' => [$endpoint]]),
        ]);
        $hooks = $this->client($server)->webhookEndpoints;
        $hooks->update('whe_1', desks: \Paygate\WebhookEndpoints::EVERY_DESK, description: '');
        $hooks->update('whe_1', events: ['order.completed'], enabled: false);
        self::assertSame(3, $hooks->recover('whe_1', new \DateTimeImmutable('2026-01-15T14:00:00+03:00'))->requeued);
        $page = $hooks->attempts('whe_1', before: '50', limit: 10);
        self::assertSame([204, 'delivered', '42', true], [$page->attempts[0]->statusCode, $page->attempts[0]->outcome, $page->next, $page->hasMore]);
        $list = $hooks->list();
        self::assertCount(1, $list);
        self::assertSame('whe_1', iterator_to_array($list)[0]->id);
        $r = $server->requests();
        self::assertSame(['PATCH', '/gw/v1/webhook-endpoints/whe_1', '{"description":null,"desks":null}'], [$r[0]['method'], $r[0]['target'], $r[0]['body']]);
        self::assertSame('{"events":["order.completed"],"enabled":false}', $r[1]['body']);
        self::assertSame(['/gw/v1/webhook-endpoints/whe_1/recover', '{"since":"2026-01-15T11:00:00Z"}'], [$r[2]['target'], $r[2]['body']]);
        self::assertSame('/gw/v1/webhook-endpoints/whe_1/attempts?before=50&limit=10', $r[3]['target']);
        $h = $r[0]['headers'];
        self::assertSame(Signing::signRequest(self::SECRET, $h['x-gate-ts'], $h['x-gate-nonce'], 'PATCH', '/gw/v1/webhook-endpoints/whe_1', $r[0]['body']), $h['x-gate-sign']);
    }

    public function test_the_surface_dump_is_read_from_the_code(): void
    {
        $out = shell_exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg(__DIR__ . '/../tools/surface.php'));
        $surface = json_decode((string) $out, true, 512, JSON_THROW_ON_ERROR);
        foreach (['createOrder', 'getOrder', 'cancelOrder', 'openAppeal', 'getAppeal', 'getMethods', 'getRates', 'getBalance', 'listEvents'] as $op) {
            self::assertContains($op, $surface['operations']);
        }
        $order = (new \ReflectionClass(\Paygate\Model\Order::class))->getProperties(\ReflectionProperty::IS_PUBLIC);
        self::assertSame(array_map(static fn ($p) => $p->getName(), $order), $surface['schemas']['Order']);
        self::assertContains('payPageUrl', $surface['schemas']['Order']);
        self::assertSame(['amount', 'currency', 'rail', 'direction', 'orderRef', 'notifyUrl', 'successUrl', 'failUrl', 'backUrl', 'operator', 'targetBank', 'lifetimeMinutes'], $surface['schemas']['CreateOrderRequest']);
        self::assertSame(['reason'], $surface['schemas']['CancelOrderRequest']);
        self::assertSame(['url', 'events', 'description', 'desks', 'enabled'], $surface['schemas']['UpdateWebhookEndpointRequest']);
        self::assertSame(['value', 'currency'], $surface['schemas']['Appeal.amount']);
        self::assertSame(['value', 'currency', 'rate'], $surface['schemas']['CallbackEvent.settled']);
    }

    private static function refusal(callable $f): PaygateException
    {
        try {
            $f();
        } catch (PaygateException $e) {
            return $e;
        }
        self::fail('expected a PaygateException');
    }
}
