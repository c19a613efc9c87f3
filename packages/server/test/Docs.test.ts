import { assert, describe, it } from "@effect/vitest"
import { GatewayRoutes } from "@voiceagent/domain/Gateway"
import * as Config from "@voiceagent/server/Config"
import { sign } from "@voiceagent/runner/Webhooks/Webhooks"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const readme = fs.readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8")

describe("README", () => {
  it("documents every configuration variable with its default", () => {
    for (const variable of Config.Variables) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${variable.name}\` |`))
      assert.isDefined(row, variable.name)
      if (variable.default !== undefined) assert.include(row!, `\`${variable.default}\``, variable.name)
    }
  })

  it("shows the gateway route table as declared", () => {
    for (const route of GatewayRoutes) assert.include(readme, `| \`${route.prefix}\` | ${route.service} |`)
  })

  it("shows the two commands and every role", () => {
    for (const text of ["npm install && npm start", "npm test", "`start`", "`serve platform-core`", "`serve gateway`", "`runner`", "`migrate`"]) {
      assert.include(readme, text)
    }
  })
})

describe("README testing example", () => {
  it("is the test file it says it is, verbatim (so it runs with npm test)", () => {
    const block = readme.split("<!-- testkit-example -->")[1]?.match(/```ts\n([\s\S]*?)```/)
    assert.isDefined(block?.[1], "the README has the example after its marker")
    const file = fs.readFileSync(fileURLToPath(new URL("../../runner/test/ReadmeExample.test.ts", import.meta.url)), "utf8")
    assert.strictEqual(block![1], file)
  })
})

describe("README webhook verification snippet", () => {
  it("accepts what the dispatcher signs, and refuses a changed body, a wrong secret and an old timestamp", async () => {
    const block = readme.split("<!-- webhook-verification-snippet -->")[1]?.match(/```js\n([\s\S]*?)```/)
    assert.isDefined(block?.[1], "the README has the snippet after its marker")
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "snippet-")), "verify.mjs")
    fs.writeFileSync(file, block![1]!)
    const { verifyVoiceagentSignature: verify } = await import(pathToFileURL(file).href)
    const body = JSON.stringify({ id: "e1", type: "call.ended", data: { outcome: "ANSWERED" } })
    const now = Math.floor(Date.now() / 1000)
    const header = sign("whsec_test", now, body)
    assert.isTrue(verify(body, header, "whsec_test"))
    assert.isFalse(verify(body.replace("ANSWERED", "BUSY"), header, "whsec_test"))
    assert.isFalse(verify(body, header, "whsec_other"))
    assert.isFalse(verify(body, sign("whsec_test", now - 3600, body), "whsec_test"))
    assert.isFalse(verify(body, "garbage", "whsec_test"))
  })
})
