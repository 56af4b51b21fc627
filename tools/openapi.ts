/**
 * Writes the OpenAPI document generated from the route schemas to `openapi.json` (and the Markdown
 * reference `docs/api-reference.md`). `npm run openapi`; a test fails when either is out of date.
 */
import { writeFileSync } from 'node:fs';
import { generateOpenApi, renderMarkdownReference } from '../src/app/openapiDocument.js';

const doc = await generateOpenApi();
writeFileSync(new URL('../openapi.json', import.meta.url), JSON.stringify(doc, null, 2) + '\n');
writeFileSync(new URL('../docs/api-reference.md', import.meta.url), renderMarkdownReference(doc));
process.stdout.write('openapi.json and docs/api-reference.md written\n');
