/**
 * `npm run schema`: writes the definition's JSON Schema to schema/pipeline-definition.schema.json
 * (from the current directory: the repository root). Commit the result; a test fails when the
 * committed file and the zod schema disagree.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFINITION_SCHEMA_FILE, definitionJsonSchemaText } from '../../src/definition/json-schema';

const file = path.resolve(process.argv[2] ?? DEFINITION_SCHEMA_FILE);
writeFileSync(file, definitionJsonSchemaText());
console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
