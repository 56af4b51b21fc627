<?php

declare(strict_types=1);

// For use without Composer: `require 'path/to/sdk-php/autoload.php';` loads the `Paygate\` classes
// from src/ on first use, exactly as Composer's PSR-4 autoloader would.
spl_autoload_register(static function (string $class): void {
    $prefix = 'Paygate\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
