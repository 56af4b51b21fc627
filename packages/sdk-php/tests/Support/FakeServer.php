<?php

declare(strict_types=1);

namespace Paygate\Tests\Support;

use RuntimeException;

/** The scripted server of fake-server.php, started as a process of its own for one test. */
final class FakeServer
{
    public readonly string $url;
    /** @var resource */
    private $process;
    private string $dir;

    /** @param list<array<string, mixed>> $script one action per request, in order */
    public function __construct(array $script)
    {
        $this->dir = sys_get_temp_dir() . '/paygate-php-fake-' . bin2hex(random_bytes(6));
        mkdir($this->dir);
        file_put_contents("{$this->dir}/script.json", json_encode($script, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR));
        touch("{$this->dir}/log.jsonl");
        $cmd = [PHP_BINARY, __DIR__ . '/fake-server.php', "{$this->dir}/script.json", "{$this->dir}/log.jsonl"];
        $process = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['file', "{$this->dir}/stderr", 'w']], $pipes);
        if (!is_resource($process)) {
            throw new RuntimeException('could not start the fake server');
        }
        $this->process = $process;
        $port = trim((string) fgets($pipes[1]));
        if (!ctype_digit($port)) {
            throw new RuntimeException('the fake server did not start: ' . file_get_contents("{$this->dir}/stderr"));
        }
        $this->url = "http://127.0.0.1:{$port}";
    }

    /** @return list<array{method: string, target: string, headers: array<string, string>, body: string}> */
    public function requests(): array
    {
        $lines = array_filter(explode("\n", (string) file_get_contents("{$this->dir}/log.jsonl")));
        return array_values(array_map(static fn ($l) => json_decode($l, true, 512, JSON_THROW_ON_ERROR), $lines));
    }

    public function stop(): void
    {
        if (is_resource($this->process)) {
            proc_terminate($this->process, 9);
            proc_close($this->process);
        }
        foreach (glob("{$this->dir}/*") ?: [] as $f) {
            unlink($f);
        }
        @rmdir($this->dir);
    }

    public function __destruct()
    {
        $this->stop();
    }

    /** A gateway answer: the `{status: "ok", result}` envelope. */
    public static function ok(int $status, array $result): array
    {
        return ['status' => $status, 'headers' => ['X-Trace-Id' => 'trc_fake'], 'body' => json_encode(['status' => 'ok', 'result' => $result, 'traceId' => 'trc_fake'], JSON_UNESCAPED_SLASHES)];
    }

    /** A gateway refusal: the error envelope. */
    public static function fault(int $status, string $code, ?string $detail = null, string $traceId = 'trc_fault'): array
    {
        return ['status' => $status, 'headers' => ['X-Trace-Id' => $traceId], 'body' => json_encode(['status' => 'error', 'fault' => ['code' => $code, 'detail' => $detail], 'traceId' => $traceId], JSON_UNESCAPED_SLASHES)];
    }
}
