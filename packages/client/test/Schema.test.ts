import * as fs from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { generateSchemaSource, schemaFile } from "../scripts/Contract.js"

/** The first line where two texts differ, with its neighbours: a 9,000-line diff helps nobody. */
const firstDifference = (committed: string, generated: string): string => {
  const a = committed.split("\n")
  const b = generated.split("\n")
  let i = 0
  while (i < Math.max(a.length, b.length) && a[i] === b[i]) i++
  const around = (lines: ReadonlyArray<string>) => lines.slice(Math.max(0, i - 2), i + 3).join("\n")
  return `first difference at line ${i + 1}\n--- committed\n${around(a)}\n+++ generated\n${around(b)}`
}

describe("the committed client types", () => {
  it("are what openapi-typescript generates from the current contract", async () => {
    const [committed, generated] = await Promise.all([fs.readFile(schemaFile, "utf8"), generateSchemaSource()])
    if (committed !== generated) {
      expect.fail(
        `packages/client/src/schema.ts is stale: run npm run client:generate\n${firstDifference(committed, generated)}`
      )
    }
  }, 60_000)
})
