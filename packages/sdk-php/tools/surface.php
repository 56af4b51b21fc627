<?php

declare(strict_types=1);

// Prints what the SDK covers of the gateway API, read from its code by reflection:
// {"operations": [operationIds of the client methods' #[Operation] attributes],
//  "schemas": {"SchemaName": [fields]}}: the public properties of each #[Schema] result class (a
// property holding an object of a class without #[Schema] is an inline object of the document,
// named "SchemaName.property"), and the body parameters of each method whose #[Operation] names a
// request schema.

require __DIR__ . '/../autoload.php';

use Paygate\Attribute\InPath;
use Paygate\Attribute\InQuery;
use Paygate\Attribute\Operation;
use Paygate\Attribute\Schema;

/**
 * The fields of `$class` as schema `$name`, and its inline objects as `$name.field`.
 *
 * @param array<string, list<string>> $schemas
 */
function describe(ReflectionClass $class, string $name, array &$schemas): void
{
    $fields = [];
    foreach ($class->getProperties(ReflectionProperty::IS_PUBLIC) as $property) {
        if ($property->isStatic()) {
            continue;
        }
        $fields[] = $property->getName();
        $type = $property->getType();
        if ($type instanceof ReflectionNamedType && !$type->isBuiltin()) {
            $inner = new ReflectionClass($type->getName());
            if ($inner->getAttributes(Schema::class) === []) {
                describe($inner, "{$name}.{$property->getName()}", $schemas);
            }
        }
    }
    $schemas[$name] = $fields;
}

$src = realpath(__DIR__ . '/../src');
$classes = [];
$files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($src, FilesystemIterator::SKIP_DOTS));
foreach ($files as $file) {
    if ($file->getExtension() !== 'php') {
        continue;
    }
    $relative = substr($file->getPathname(), strlen($src) + 1, -4);
    $classes[] = 'Paygate\\' . str_replace('/', '\\', $relative);
}
sort($classes);

$operations = [];
$schemas = [];
foreach ($classes as $name) {
    if (!class_exists($name) && !interface_exists($name) && !enum_exists($name)) {
        continue;
    }
    $class = new ReflectionClass($name);
    foreach ($class->getAttributes(Schema::class) as $attribute) {
        describe($class, $attribute->newInstance()->name, $schemas);
    }
    foreach ($class->getMethods(ReflectionMethod::IS_PUBLIC) as $method) {
        if ($method->getDeclaringClass()->getName() !== $name) {
            continue;
        }
        foreach ($method->getAttributes(Operation::class) as $attribute) {
            $operation = $attribute->newInstance();
            $operations[] = $operation->operationId;
            if ($operation->requestSchema !== null) {
                $fields = [];
                foreach ($method->getParameters() as $parameter) {
                    if ($parameter->getAttributes(InPath::class) === [] && $parameter->getAttributes(InQuery::class) === []) {
                        $fields[] = $parameter->getName();
                    }
                }
                $schemas[$operation->requestSchema] = $fields;
            }
        }
    }
}
$operations = array_values(array_unique($operations));
sort($operations);
ksort($schemas);
echo json_encode(['operations' => $operations, 'schemas' => (object) $schemas], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";
