<?php

declare(strict_types=1);

// The SDK as a merchant without Composer loads it: through its own autoload.php.
require __DIR__ . '/../autoload.php';

// The tests' own classes (`Paygate\Tests\…`) from this folder.
spl_autoload_register(static function (string $class): void {
    $prefix = 'Paygate\\Tests\\';
    if (strncmp($class, $prefix, strlen($prefix)) === 0) {
        $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
