/**
 * The API contract as outside tools see it: the gateway's merged OpenAPI document (the same
 * `OpenApi.fromApi(PlatformApi)` the gateway serves at `/api/v1/openapi.json`, built without a
 * server), the client types openapi-typescript generates from it, and Redocly's lint of it.
 * Used by `npm run client:generate`, `npm run openapi:lint` and the client package's tests.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { PlatformApi } from "@voiceagent/domain/Gateway"
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript"
import ts from "typescript"

export const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url))
export const schemaFile = path.join(repositoryRoot, "packages/client/src/schema.ts")
export const redoclyConfigFile = path.join(repositoryRoot, "redocly.yaml")

/** The gateway's merged OpenAPI document. */
export const platformDocument = (): OpenApi.OpenAPISpec => OpenApi.fromApi(PlatformApi)

/** The document as the gateway serves it: JSON, two-space indented. */
export const platformDocumentJson = (): string => JSON.stringify(platformDocument(), null, 2) + "\n"

const HEADER = `/**
 * Generated from the gateway's OpenAPI document (OpenApi.fromApi(PlatformApi), as served at
 * /api/v1/openapi.json) by openapi-typescript. Do not edit: regenerate with
 *
 *   npm run client:generate
 *
 * A test (packages/client/test/Schema.test.ts) fails when this file differs from what the
 * current contract generates.
 */

`

/** `format: binary` (multipart file parts) becomes `Blob`, which `File` extends, instead of `string`. */
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"))

/** The source of `packages/client/src/schema.ts`, from the current contract. */
export const generateSchemaSource = async (): Promise<string> => {
  const document = structuredClone(platformDocument()) as unknown as OpenAPI3
  const nodes = await openapiTS(document, {
    silent: true,
    // `metadata` and `settings` are `{type: object}`: any JSON object, not an empty one
    emptyObjectsUnknown: true,
    transform: (schema) => ("format" in schema && schema.format === "binary" ? BLOB : undefined)
  })
  return HEADER + astToString(nodes)
}

export interface LintResult {
  readonly exitCode: number
  readonly output: string
}

/** The document written to a temporary file, linted by the Redocly CLI with the repository's config. */
export const lintDocument = async (): Promise<LintResult> => {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "voiceagent-openapi-"))
  try {
    const file = path.join(directory, "openapi.json")
    await fs.writeFile(file, platformDocumentJson())
    return await run(path.join(repositoryRoot, "node_modules/.bin/redocly"), [
      "lint",
      file,
      "--config",
      redoclyConfigFile,
      "--format",
      "stylish",
      "--max-problems",
      "1000"
    ])
  } finally {
    await fs.rm(directory, { recursive: true, force: true })
  }
}

const run = (command: string, args: ReadonlyArray<string>) =>
  new Promise<LintResult>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: repositoryRoot,
      // No telemetry or update check: the lint runs offline, in CI too.
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ exitCode: code ?? 1, output }))
  })
