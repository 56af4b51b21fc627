import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';
import { validatorCompiler } from './schemaErrors.js';

/**
 * The JSON text of a schema made of plain objects, arrays and JSON values only, or null: two such
 * schemas with the same text compile to the same validator and serializer. The text comes from
 * JSON.stringify without a replacer and the check is a walk of its own: a replacer function, called
 * for every value, cost twice as much.
 */
function schemaKey(schema: unknown): string | null {
  const text = JSON.stringify(schema);
  return text !== undefined && plainJson(schema) ? text : null;
}

/** Whether JSON.stringify would see only plain objects, arrays and JSON values (what it skips aside). */
function plainJson(v: unknown): boolean {
  if (typeof v === 'function' || typeof v === 'bigint' || typeof v === 'symbol') return false;
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) return v.every(plainJson);
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) if (!plainJson((v as Record<string, unknown>)[k])) return false;
  return true;
}

const validators = new Map<string, ReturnType<typeof validatorCompiler>>();
const serializers = new Map<string, (data: unknown) => string>();
const defaultSerializer = SerializerSelector()({}, undefined);

/**
 * Compiling the route schemas (Ajv validators, response serializers) is a large part of building
 * the app, and most routes share their schemas: the envelope of every error answer, the same
 * result on several routes (743 serializers for 114 distinct schemas). Each distinct schema is
 * compiled once per process, by the app's own validator compiler and Fastify's default serializer
 * compiler: the same schema text compiles to the same function. A serializer keeps no state; a
 * validator keeps only the errors of its last call, which Fastify reads at once, in the same turn.
 * The app adds no shared schemas and sets no serializer options, which this relies on.
 */
export function shareCompiledSchemas(app: FastifyInstance): void {
  app.setValidatorCompiler((route) => {
    const key = schemaKey(route.schema);
    if (key === null) return validatorCompiler(route);
    const k = `${route.httpPart}\n${key}`;
    let fn = validators.get(k);
    if (!fn) validators.set(k, (fn = validatorCompiler(route)));
    return fn;
  });
  app.setSerializerCompiler((r) => {
    const route = r as Parameters<typeof defaultSerializer>[0];
    const key = schemaKey(route.schema);
    if (key === null) return defaultSerializer(route);
    let fn = serializers.get(key);
    if (!fn) serializers.set(key, (fn = defaultSerializer(route) as (data: unknown) => string));
    return fn;
  });
}
