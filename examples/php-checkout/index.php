<?php

declare(strict_types=1);

// A checkout in plain PHP: `php -S 127.0.0.1:8000 index.php` (see README.md). The customer enters
// an amount, the shop creates a Paygate order and sends the customer to its payment page; the
// gateway's signed callback, verified with the SDK, marks the shop's order paid.

use Paygate\Callbacks;
use Paygate\Client;
use Paygate\PaygateException;

// With Composer: require 'vendor/autoload.php'. Without: the SDK's own autoloader.
require is_file(__DIR__ . '/vendor/autoload.php') ? __DIR__ . '/vendor/autoload.php' : __DIR__ . '/../../packages/sdk-php/autoload.php';
require __DIR__ . '/Store.php';

function setting(string $name, ?string $default = null): string
{
    $value = getenv($name);
    if ($value === false || $value === '') {
        if ($default === null) {
            http_response_code(500);
            exit("Set {$name} (see README.md).\n");
        }
        return $default;
    }
    return $value;
}

function page(string $title, string $body, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    echo '<!doctype html><html><head><meta charset="utf-8"><title>', htmlspecialchars($title), '</title></head><body><h1>',
        htmlspecialchars($title), '</h1>', $body, '</body></html>';
}

function json(mixed $value, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
}

$shopUrl = rtrim(setting('SHOP_URL', 'http://127.0.0.1:8000'), '/');
$store = new Store(setting('SHOP_STORE', sys_get_temp_dir() . '/paygate-php-checkout.json'));
$secret = setting('PAYGATE_SECRET');
$paygate = new Client(setting('PAYGATE_URL'), setting('PAYGATE_KEY'), $secret);

$method = $_SERVER['REQUEST_METHOD'] ?? 'GET';
$path = parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH) ?: '/';

if ($method === 'GET' && $path === '/') {
    page('Checkout', '<form method="post" action="/checkout"><label>Amount, RUB <input name="amount" value="918.00"></label> '
        . '<label>Pay by <select name="rail"><option value="Sbp">phone number (SBP)</option><option value="C2c">card number</option></select></label> <button>Pay</button></form>');
    return;
}

if ($method === 'POST' && $path === '/checkout') {
    $amount = trim((string) ($_POST['amount'] ?? ''));
    if (preg_match('/^\d{1,9}(\.\d{1,2})?$/D', $amount) !== 1 || (float) $amount <= 0) {
        page('Checkout', '<p>Enter an amount such as 918.00.</p>', 400);
        return;
    }
    $rail = in_array($_POST['rail'] ?? 'Sbp', ['Sbp', 'C2c'], true) ? (string) ($_POST['rail'] ?? 'Sbp') : 'Sbp';
    // The shop's own reference doubles as the gateway's orderRef: a retried create is the same order.
    $ref = 'shop-' . bin2hex(random_bytes(6));
    $store->update(static fn (array $orders) => [$orders + [$ref => ['ref' => $ref, 'amount' => $amount, 'currency' => 'RUB', 'status' => 'new', 'events' => []]], null]);
    try {
        $order = $paygate->orders->create(
            amount: $amount,
            currency: 'RUB',
            rail: $rail,
            orderRef: $ref,
            notifyUrl: "{$shopUrl}/paygate/callback",
            successUrl: "{$shopUrl}/thanks?ref={$ref}",
            failUrl: "{$shopUrl}/thanks?ref={$ref}",
        );
    } catch (PaygateException $e) {
        // Show the code and trace id, never the secret or a stack trace.
        page('Payment unavailable', '<p>' . htmlspecialchars("{$e->code}: {$e->detail}") . '</p><p>Quote ' . htmlspecialchars((string) $e->traceId) . ' to support.</p>', 502);
        return;
    }
    $store->update(static function (array $orders) use ($ref, $order) {
        $orders[$ref]['id'] = $order->id;
        $orders[$ref]['status'] = 'awaiting payment';
        $orders[$ref]['payPageUrl'] = $order->payPageUrl;
        $orders[$ref]['sandbox'] = $order->sandbox;
        return [$orders, null];
    });
    http_response_code(303);
    header('Location: ' . $order->payPageUrl);
    return;
}

if ($method === 'POST' && $path === '/paygate/callback') {
    try {
        // The raw body and the X-Gate-* headers of this request, checked against the desk secret.
        $event = Callbacks::verifyCurrentRequest($secret);
    } catch (PaygateException $e) {
        http_response_code(400);
        header('Content-Type: text/plain');
        echo $e->code;
        return;
    }
    $eventId = (string) ($_SERVER['HTTP_X_GATE_EVENT_ID'] ?? '');
    $store->update(static function (array $orders) use ($event, $eventId) {
        $ref = $event->orderRef;
        if ($ref === null || !isset($orders[$ref]) || in_array($eventId, $orders[$ref]['events'], true)) {
            // Not ours, or a repeat of an event already applied: acknowledge and do nothing.
            return [$orders, null];
        }
        $orders[$ref]['events'][] = $eventId;
        $orders[$ref]['gatewayStatus'] = $event->status;
        if ($event->event === 'order.completed') {
            $orders[$ref]['status'] = 'paid';
            $orders[$ref]['paidAmount'] = $event->paidAmount?->value ?? $event->amount->value;
        } elseif ($event->event === 'order.cancelled') {
            $orders[$ref]['status'] = 'cancelled';
        }
        return [$orders, null];
    });
    // Exactly 200: anything else makes the gateway try again.
    http_response_code(200);
    echo 'ok';
    return;
}

if ($method === 'GET' && $path === '/thanks') {
    $order = $store->all()[(string) ($_GET['ref'] ?? '')] ?? null;
    $text = $order === null ? 'Unknown order.' : ($order['status'] === 'paid' ? 'Paid, thank you.' : 'Order ' . $order['status'] . '.');
    page('Your order', '<p>' . htmlspecialchars($text) . '</p>');
    return;
}

if ($method === 'GET' && $path === '/orders') {
    json(array_values($store->all()));
    return;
}

if ($method === 'GET' && preg_match('#^/orders/([\w-]+)$#', $path, $m) === 1) {
    $order = $store->all()[$m[1]] ?? null;
    $order === null ? json(['error' => 'not found'], 404) : json($order);
    return;
}

page('Not found', '', 404);
