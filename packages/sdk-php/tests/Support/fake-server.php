<?php

declare(strict_types=1);

// A scripted HTTP server on a real socket, for the offline tests: it answers the n-th request with
// the n-th action of the script (a response, a dropped connection, or no answer at all) and logs
// every request it read, byte for byte, to the log file. Usage: php fake-server.php SCRIPT LOG
// (prints the port it listens on, then serves until killed).

[$_, $scriptFile, $logFile] = $argv;
$script = json_decode((string) file_get_contents($scriptFile), true, 512, JSON_THROW_ON_ERROR);
$server = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
if ($server === false) {
    fwrite(STDERR, "listen failed: {$errstr}\n");
    exit(1);
}
$name = stream_socket_get_name($server, false);
echo substr($name, strrpos($name, ':') + 1), "\n";
fflush(STDOUT);

$hanging = [];
$n = 0;
for (;;) {
    $conn = @stream_socket_accept($server, 3600);
    if ($conn === false) {
        continue;
    }
    stream_set_timeout($conn, 5);
    $head = '';
    while (!str_contains($head, "\r\n\r\n")) {
        $chunk = fread($conn, 8192);
        if ($chunk === false || $chunk === '') {
            break;
        }
        $head .= $chunk;
    }
    if (!str_contains($head, "\r\n\r\n")) {
        fclose($conn);
        continue;
    }
    [$rawHead, $body] = explode("\r\n\r\n", $head, 2);
    $lines = explode("\r\n", $rawHead);
    [$method, $target] = explode(' ', array_shift($lines));
    $headers = [];
    foreach ($lines as $line) {
        [$k, $v] = explode(':', $line, 2);
        $headers[strtolower(trim($k))] = trim($v);
    }
    $length = (int) ($headers['content-length'] ?? 0);
    while (strlen($body) < $length) {
        $chunk = fread($conn, $length - strlen($body));
        if ($chunk === false || $chunk === '') {
            break;
        }
        $body .= $chunk;
    }
    file_put_contents($logFile, json_encode(['method' => $method, 'target' => $target, 'headers' => $headers, 'body' => $body], JSON_UNESCAPED_SLASHES) . "\n", FILE_APPEND | LOCK_EX);
    $action = $script[$n] ?? ['status' => 500, 'body' => '{"status":"error","fault":{"code":"SCRIPT_EXHAUSTED","detail":null},"traceId":"fake"}'];
    $n++;
    if (!empty($action['hang'])) {
        $hanging[] = $conn;
        continue;
    }
    if (!empty($action['drop'])) {
        fclose($conn);
        continue;
    }
    $status = (int) $action['status'];
    $out = "HTTP/1.1 {$status} Fake\r\n";
    $responseHeaders = ($action['headers'] ?? []) + ['Content-Type' => 'application/json; charset=utf-8'];
    foreach ($responseHeaders as $k => $v) {
        $out .= "{$k}: {$v}\r\n";
    }
    $payload = (string) ($action['body'] ?? '');
    $out .= 'Content-Length: ' . strlen($payload) . "\r\nConnection: close\r\n\r\n" . $payload;
    fwrite($conn, $out);
    fclose($conn);
}
