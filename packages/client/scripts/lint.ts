/**
 * `npm run openapi:lint`: the gateway's OpenAPI document, written to a temporary file, linted by
 * the Redocly CLI with the repository's `redocly.yaml`. Exits with Redocly's status.
 */
import { lintDocument } from "./Contract.js"

const { exitCode, output } = await lintDocument()
process.stdout.write(output)
process.exitCode = exitCode
