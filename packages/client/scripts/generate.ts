/**
 * `npm run client:generate`: writes the gateway's OpenAPI document to
 * `packages/client/build/openapi.json` (for other tools; not committed) and regenerates
 * `packages/client/src/schema.ts` from it with openapi-typescript. No server is started.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { generateSchemaSource, platformDocumentJson, repositoryRoot, schemaFile } from "./Contract.js"

const documentFile = path.join(repositoryRoot, "packages/client/build/openapi.json")
await fs.mkdir(path.dirname(documentFile), { recursive: true })
await fs.writeFile(documentFile, platformDocumentJson())
const source = await generateSchemaSource()
const before = await fs.readFile(schemaFile, "utf8").catch(() => "")
await fs.writeFile(schemaFile, source)
process.stdout.write(
  `wrote ${path.relative(repositoryRoot, documentFile)}\n` +
    `wrote ${path.relative(repositoryRoot, schemaFile)} (${before === source ? "unchanged" : "changed"})\n`
)
