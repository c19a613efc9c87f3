import { describe, expect, it } from "vitest"
import { lintDocument } from "../scripts/Contract.js"

// The gateway's merged OpenAPI document, built as the gateway builds it, linted by the Redocly CLI
// with the repository's redocly.yaml (recommended-strict: any warning is an error).
describe("the OpenAPI document under Redocly's lint", () => {
  it("has no problem with the repository's rules", async () => {
    const { exitCode, output } = await lintDocument()
    expect(exitCode, output).toBe(0)
    expect(output, "the repository's redocly.yaml was not used").not.toContain("No configurations were provided")
    expect(output).not.toMatch(/^\s*\d+:\d+\s+(error|warning)\b/m)
    expect(output).toContain("Your API description is valid")
  }, 60_000)
})
