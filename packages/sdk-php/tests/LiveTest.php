<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Model\Appeal;
use Paygate\Model\CallbackEvent;
use Paygate\Model\Order;
use Paygate\Model\OrderCreated;
use Paygate\PaygateException;
use Paygate\StandardWebhooks;
use Paygate\Tests\Support\FakeServer;
use Paygate\Tests\Support\RecordingTransport;
use PHPUnit\Framework\TestCase;

/**
 * The SDK against a running Paygate: PAYGATE_URL, PAYGATE_KEY and PAYGATE_SECRET name a sandbox
 * Classic desk (rails Sbp and C2c, RUB at 91.8) whose callbacks may go to 127.0.0.1. Skipped when
 * PAYGATE_URL is not set (test/sdk/php.test.ts starts a gateway and sets them).
 * A test that covers a shared scenario names it with `@scenario <id>`.
 */
final class LiveTest extends TestCase
{
    private string $url;
    private string $key;
    private string $secret;
    private string $run;

    protected function setUp(): void
    {
        $url = getenv('PAYGATE_URL');
        if ($url === false || $url === '') {
            self::markTestSkipped('PAYGATE_URL is not set: no gateway to talk to');
        }
        $this->url = $url;
        $this->key = (string) getenv('PAYGATE_KEY');
        $this->secret = (string) getenv('PAYGATE_SECRET');
        // orderRefs of their own per run, so a rerun against the same gateway starts afresh.
        $this->run = bin2hex(random_bytes(4));
    }

    private function client(?RecordingTransport $transport = null, ?\Closure $now = null, ?string $secret = null): Client
    {
        return new Client($this->url, $this->key, $secret ?? $this->secret, timeout: 30.0, transport: $transport, now: $now);
    }

    /** @scenario create-read-cancel-order */
    public function test_create_read_cancel_order(): void
    {
        $client = $this->client();
        $ref = "php-crc-{$this->run}";
        $created = $client->orders->create(amount: '918.00', currency: 'RUB', rail: 'Sbp', orderRef: $ref);
        self::assertInstanceOf(OrderCreated::class, $created);
        self::assertMatchesRegularExpression('/^ord_/', $created->id);
        self::assertNull($created->orderRef);
        self::assertSame(['918.00', 'RUB', 'Sbp', 'In', 'Created', true], [$created->amount, $created->currency, $created->rail, $created->direction, $created->status, $created->sandbox]);
        self::assertSame(['10.00000000', 'USD', '91.80000000'], [$created->settled->amount, $created->settled->currency, $created->settled->rate]);
        self::assertStringEndsWith("/pay/{$created->id}", $created->payPageUrl);

        $byId = $client->orders->get($created->id);
        $byRef = $client->orders->get($ref);
        self::assertInstanceOf(Order::class, $byId);
        self::assertEquals($byId, $byRef);
        self::assertSame($ref, $byId->orderRef);
        self::assertSame('WaitingForPayment', $byId->subStatus);
        self::assertSame([$created->id, $created->amount, $created->expiresAt], [$byId->id, $byId->amount, $byId->expiresAt]);
        self::assertSame(['0.0000', '0.00000000', 'USD'], [$byId->commission->rate, $byId->commission->amount, $byId->commission->currency]);
        self::assertSame('0.00000000', $byId->credited->amount);
        self::assertNull($byId->finishedAt);

        $cancelled = $client->orders->cancel($created->id, 'клиент ушёл');
        self::assertSame(['Canceled', 'клиент ушёл'], [$cancelled->status, $cancelled->cancelReason]);
        $read = $client->orders->get($ref);
        self::assertSame('Canceled', $read->status);
        self::assertSame('клиент ушёл', $read->cancelReason);
        // Cancelling again is a no-op.
        self::assertSame('Canceled', $client->orders->cancel($created->id)->status);
    }

    /** @scenario create-is-idempotent */
    public function test_create_is_idempotent(): void
    {
        $client = $this->client();
        $ref = "php-idem-{$this->run}";
        $first = $client->orders->create(amount: 459, rail: 'C2c', orderRef: $ref);
        $again = $client->orders->create(amount: 459, rail: 'C2c', orderRef: $ref);
        self::assertSame($first->id, $again->id);
        try {
            $client->orders->create(amount: 460, rail: 'C2c', orderRef: $ref);
            self::fail('a different body under the same orderRef was accepted');
        } catch (PaygateException $e) {
            self::assertSame(409, $e->status);
            self::assertSame('ORDER_REF_CONFLICT', $e->code);
            self::assertNotNull($e->detail);
            self::assertNotSame('', $e->detail);
            self::assertNotNull($e->traceId);
            self::assertNotSame('', $e->traceId);
        }
    }

    /** @scenario reads */
    public function test_reads(): void
    {
        $client = $this->client();
        $methods = $client->methods();
        self::assertSame('Classic', $methods->method);
        self::assertTrue($methods->available);
        self::assertNull($methods->reason);
        $rails = array_map(static fn ($r) => $r->rail, $methods->rails);
        sort($rails);
        self::assertSame(['C2c', 'Sbp'], $rails);
        self::assertSame('RUB', $methods->rails[0]->currencies[0]->code);

        $rates = $client->rates('RUB');
        self::assertSame('USD', $rates->settlement);
        self::assertCount(1, $rates->rates);
        self::assertSame(['RUB', '91.80000000', true], [$rates->rates[0]->code, $rates->rates[0]->rate, $rates->rates[0]->priceable]);

        $balance = $client->balance();
        self::assertSame('USD', $balance->currency);
        self::assertMatchesRegularExpression('/^\d+\.\d{8}$/', $balance->available);
        self::assertSame('sandbox', $balance->mode);
    }

    /** @scenario events-feed */
    public function test_events_feed(): void
    {
        $client = $this->client();
        $ref = "php-feed-{$this->run}";
        $order = $client->orders->create(amount: 100, rail: 'Sbp', orderRef: $ref);
        $client->orders->cancel($order->id, 'feed');

        $all = [];
        foreach ($client->events(limit: 1) as $event) {
            $all[] = $event;
        }
        self::assertNotEmpty($all);
        $ids = array_map(static fn ($e) => $e->id, $all);
        self::assertSame($ids, array_values(array_unique($ids)), 'every event once');
        $ours = array_values(array_filter($all, static fn ($e) => $e->orderId === $order->id));
        self::assertCount(1, $ours);
        self::assertSame('order.cancelled', $ours[0]->event);
        self::assertMatchesRegularExpression('/^evt_/', $ours[0]->id);
        $body = $ours[0]->callbackEvent();
        self::assertInstanceOf(CallbackEvent::class, $body);
        self::assertSame([$order->id, $ref, 'Canceled', '100.00'], [$body->id, $body->orderRef, $body->status, $body->amount->value]);

        // From the last one there is nothing more; by order, just ours.
        self::assertSame([], iterator_to_array($client->events(after: end($ids)), false));
        $byOrder = array_map(static fn ($e) => $e->id, iterator_to_array($client->events(orderId: $ref), false));
        self::assertSame([$ours[0]->id], $byOrder);
        $page = $client->eventsPage(limit: 1);
        self::assertCount(1, $page->events);
        self::assertSame(count($all) > 1, $page->hasMore);
    }

    /** @scenario appeals */
    public function test_appeals(): void
    {
        $client = $this->client();
        $order = $client->orders->create(amount: 100, rail: 'C2c', orderRef: "php-apl-{$this->run}");
        $client->orders->cancel($order->id);
        $appeal = $client->appeals->create(orderId: $order->id, reason: 'paid, see receipt', evidenceUrl: 'https://files.example/r.pdf');
        self::assertInstanceOf(Appeal::class, $appeal);
        self::assertMatchesRegularExpression('/^apl_/', $appeal->id);
        self::assertSame([$order->id, "php-apl-{$this->run}", 'Open', 'paid, see receipt', 'https://files.example/r.pdf'], [$appeal->orderId, $appeal->orderRef, $appeal->status, $appeal->reason, $appeal->evidenceUrl]);
        self::assertSame(['1.08932462', 'USD'], [$appeal->amount->value, $appeal->amount->currency]);
        self::assertNull($appeal->resolvedAt);
        self::assertNull($appeal->comment);
        self::assertNotSame('', $appeal->slaDueAt);
        self::assertEquals($appeal, $client->appeals->get($appeal->id));
        self::assertSame('Dispute', $client->orders->get($order->id)->status);

        try {
            $client->appeals->create(orderId: 'ord_nope');
            self::fail('an appeal on an unknown order was opened');
        } catch (PaygateException $e) {
            self::assertSame([404, 'ORDER_NOT_FOUND'], [$e->status, $e->code]);
        }
    }

    /** @scenario wrong-secret */
    public function test_wrong_secret(): void
    {
        $transport = new RecordingTransport();
        try {
            $this->client($transport, secret: $this->secret . 'x')->balance();
            self::fail('a wrong secret was accepted');
        } catch (PaygateException $e) {
            self::assertSame([401, 'AUTH_FAILED'], [$e->status, $e->code]);
            self::assertNotNull($e->traceId);
            self::assertNotSame('', $e->traceId);
        }
        self::assertCount(1, $transport->exchanges);
    }

    /** @scenario clock-off */
    public function test_clock_off(): void
    {
        $transport = new RecordingTransport();
        $client = $this->client($transport, now: static fn (): float => microtime(true) - 600);
        self::assertSame('USD', $client->balance()->currency);
        self::assertCount(2, $transport->exchanges);
        self::assertSame(401, $transport->exchanges[0]['status']);
        self::assertStringContainsString('AUTH_TIMESTAMP_SKEW', $transport->exchanges[0]['response']);
        self::assertSame(200, $transport->exchanges[1]['status']);
        self::assertEqualsWithDelta(time(), (int) $transport->exchanges[1]['headers']['X-Gate-Ts'], 5);
        self::assertTrue($client->methods()->available);
        self::assertCount(3, $transport->exchanges);
    }

    /** @scenario body-modified-after-signing */
    public function test_body_modified_after_signing(): void
    {
        $transport = new RecordingTransport(static fn (string $body): string => str_replace('"amount":100', '"amount":1000', $body));
        try {
            $this->client($transport)->orders->create(amount: 100, rail: 'Sbp');
            self::fail('a body changed after signing was accepted');
        } catch (PaygateException $e) {
            self::assertSame([401, 'AUTH_FAILED'], [$e->status, $e->code]);
        }
        self::assertCount(1, $transport->exchanges);
        self::assertSame('{"amount":1000,"rail":"Sbp"}', $transport->exchanges[0]['body']);
    }

    /** @scenario webhook-endpoints */
    public function test_webhook_endpoints(): void
    {
        $receiver = new FakeServer(array_fill(0, 50, ['status' => 200, 'body' => 'ok']));
        try {
            $transport = new RecordingTransport();
            $client = $this->client($transport);
            $endpoint = $client->webhookEndpoints->create(url: "{$receiver->url}/hooks", events: ['*'], description: 'ERP');
            self::assertMatchesRegularExpression('/^whe_/', $endpoint->id);
            self::assertMatchesRegularExpression('/^whsec_[A-Za-z0-9+\/]+=*$/', $endpoint->secret);
            self::assertSame(["{$receiver->url}/hooks", ['*'], null, 'ERP', true, null], [$endpoint->url, $endpoint->events, $endpoint->desks, $endpoint->description, $endpoint->enabled, $endpoint->disabledReason]);

            $list = $client->webhookEndpoints->list();
            self::assertSame(count($list->endpoints), count($list));
            $listed = array_values(array_filter($list->endpoints, static fn ($e) => $e->id === $endpoint->id));
            self::assertCount(1, $listed);
            $read = $client->webhookEndpoints->get($endpoint->id);
            self::assertSame([$endpoint->url, 'ERP'], [$read->url, $read->description]);
            // The secret is shown once: neither the list nor the read carries it.
            foreach (array_slice($transport->exchanges, -2) as $x) {
                self::assertStringNotContainsString('whsec_', $x['response']);
                self::assertStringNotContainsString('"secret"', $x['response']);
            }

            $updated = $client->webhookEndpoints->update($endpoint->id, description: 'ERP and chat', events: ['order.completed', 'order.cancelled']);
            self::assertSame(['ERP and chat', ['order.completed', 'order.cancelled']], [$updated->description, $updated->events]);

            $rotated = $client->webhookEndpoints->rotateSecret($endpoint->id);
            self::assertMatchesRegularExpression('/^whsec_/', $rotated->secret);
            self::assertNotSame($endpoint->secret, $rotated->secret);

            $recovery = $client->webhookEndpoints->recover($endpoint->id, new \DateTimeImmutable('-1 hour'));
            self::assertGreaterThanOrEqual(0, $recovery->requeued);
            self::assertNotSame('', $recovery->since);

            // A test event reaches the endpoint alone.
            $test = $client->webhookEndpoints->sendTest($endpoint->id);
            self::assertNotSame('', $test->eventId);
            $testDelivery = $this->awaitDelivery($receiver, $client, $endpoint->id, static fn (array $r) => ($r['headers']['webhook-id'] ?? null) === $test->eventId);
            self::assertSame('webhook.test', StandardWebhooks::verify($testDelivery['body'], $testDelivery['headers'], $rotated->secret)->type);

            // An event after the endpoint exists reaches it, signed with both secrets during the rotation.
            $order = $client->orders->create(amount: 100, rail: 'Sbp', orderRef: "php-whk-{$this->run}");
            $client->orders->cancel($order->id, 'webhook');
            $delivery = $this->awaitDelivery($receiver, $client, $endpoint->id, static fn (array $r) => str_contains($r['body'], $order->id));
            $message = StandardWebhooks::verify($delivery['body'], $delivery['headers'], $rotated->secret);
            self::assertSame('order.cancelled', $message->type);
            self::assertSame($order->id, $message->callbackEvent()->id);
            self::assertSame('Canceled', $message->callbackEvent()->status);
            self::assertSame($message->id, StandardWebhooks::verify($delivery['body'], $delivery['headers'], $endpoint->secret)->id);
            $changed = str_replace('"Canceled"', '"Completed"', $delivery['body']);
            try {
                StandardWebhooks::verify($changed, $delivery['headers'], $rotated->secret);
                self::fail('a changed delivery verified');
            } catch (PaygateException $e) {
                self::assertSame('CALLBACK_SIGNATURE_MISMATCH', $e->code);
            }

            $attempts = null;
            $deadline = microtime(true) + 30;
            do {
                $page = $client->webhookEndpoints->attempts($endpoint->id, limit: 10);
                $attempts = array_values(array_filter($page->attempts, static fn ($a) => $a->eventId === $message->id));
                if ($attempts === []) {
                    usleep(200_000);
                }
            } while ($attempts === [] && microtime(true) < $deadline);
            self::assertNotEmpty($attempts, 'the delivery is not in the attempts');
            self::assertSame([200, 'delivered', 'order.cancelled'], [$attempts[0]->statusCode, $attempts[0]->outcome, $attempts[0]->type]);
        } finally {
            $receiver->stop();
        }
    }

    /**
     * The first request the receiver got that `$match` accepts, waiting up to 60 s for it.
     *
     * @param callable(array{method: string, target: string, headers: array<string, string>, body: string}): bool $match
     * @return array{method: string, target: string, headers: array<string, string>, body: string}
     */
    private function awaitDelivery(FakeServer $receiver, Client $client, string $endpointId, callable $match): array
    {
        $deadline = microtime(true) + 60;
        do {
            foreach ($receiver->requests() as $r) {
                if ($match($r)) {
                    return $r;
                }
            }
            usleep(200_000);
        } while (microtime(true) < $deadline);
        $attempts = array_map(static fn ($a) => "{$a->type} {$a->outcome} {$a->statusCode} {$a->error}", $client->webhookEndpoints->attempts($endpointId)->attempts);
        self::fail('no such webhook delivery within 60 s; the receiver got ' . count($receiver->requests()) . ' requests; attempts: ' . implode('; ', $attempts));
    }
}
