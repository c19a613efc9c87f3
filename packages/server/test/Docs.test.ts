import { assert, describe, it } from "@effect/vitest"
import { GatewayRoutes, GatewayWebSocketRoutes } from "@voiceagent/domain/Gateway"
import { sign } from "@voiceagent/runner/Webhooks/Webhooks"
import * as Config from "@voiceagent/server/Config"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { headingAnchors, linkTargets } from "./Markdown.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")
const docsPages = fs.readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).sort()

const readme = read("README.md")

/** Every markdown file of the repository's documentation: the README, ARCHITECTURE, docs/** and bench/**. */
const markdownUnder = (dir: string): Array<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : markdownUnder(relative)
    return entry.name.endsWith(".md") ? [relative] : []
  })
const markdownFiles = ["README.md", "ARCHITECTURE.md", ...markdownUnder("docs"), ...markdownUnder("bench")].sort()

/** The relative links of `markdown` (as if in `file`) that reach no file of the repository, or no heading there. */
const brokenLinks = (file: string, markdown: string): Array<string> => {
  const broken: Array<string> = []
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:
    const [pathPart = "", anchor] = target.split("#", 2)
    const resolved = pathPart === ""
      ? path.join(root, file)
      : path.resolve(root, path.dirname(file), decodeURI(pathPart))
    // a link out of the repository (the API spec beside it) is not the repository's to check
    if (path.relative(root, resolved).startsWith("..")) continue
    const self = pathPart === ""
    if (!self && !fs.existsSync(resolved)) {
      broken.push(`${target}: no such file`)
      continue
    }
    if (anchor === undefined) continue
    if (!resolved.endsWith(".md")) broken.push(`${target}: an anchor into a file that is not markdown`)
    else if (!headingAnchors(self ? markdown : fs.readFileSync(resolved, "utf8")).has(anchor)) {
      broken.push(`${target}: no such heading`)
    }
  }
  return broken
}

const decisionsDir = "docs/decisions"
const decisionRecords = fs.readdirSync(path.join(root, decisionsDir)).filter((name) => name !== "README.md").sort()

describe("README", () => {
  it("is one screenful of orientation: under 250 lines", () => {
    const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0)
    assert.isBelow(lines, 250, "README.md: move reference material into docs/")
  })

  it("shows the two commands", () => {
    for (const text of ["npm install && npm start", "npm test"]) assert.include(readme, text)
  })

  it("links every docs page", () => {
    for (const page of docsPages) assert.include(readme, `](docs/${page}`, page)
  })

  it("links the architecture map and the decision records' index", () => {
    const targets = linkTargets(readme)
    assert.include(targets, "ARCHITECTURE.md")
    assert.include(targets, "docs/decisions/README.md")
  })
})

describe("ARCHITECTURE.md", () => {
  it("is a one-page map: under 250 lines (reasoning goes to docs/decisions, reference to docs/)", () => {
    const architecture = read("ARCHITECTURE.md")
    assert.isBelow(architecture.split("\n").length, 250)
  })
})

describe("docs/decisions", () => {
  it("holds only records named NNNN-kebab-title.md, one per number", () => {
    const numbers = decisionRecords.map((name) => {
      assert.match(name, /^\d{4}-[a-z0-9]+(-[a-z0-9]+)*\.md$/, name)
      return name.slice(0, 4)
    })
    assert.strictEqual(new Set(numbers).size, numbers.length, "two records share a number")
  })

  it("lists every record in its index", () => {
    const targets = linkTargets(read(`${decisionsDir}/README.md`))
    for (const record of decisionRecords) {
      assert.include(targets, record, `${record} is missing from docs/decisions/README.md`)
    }
  })

  it("gives every record its number as title, and its context, decision and consequences", () => {
    for (const record of decisionRecords) {
      const text = read(`${decisionsDir}/${record}`)
      assert.match(text, new RegExp(`^# ${record.slice(0, 4)}\\. `), record)
      const anchors = headingAnchors(text)
      for (const section of ["context", "decision", "consequences"]) {
        assert.isTrue(anchors.has(section), `${record}: ## ${section}`)
      }
    }
  })
})

describe("docs/configuration.md", () => {
  const configuration = read("docs/configuration.md")
  it("documents every configuration variable with its default", () => {
    for (const variable of Config.Variables) {
      const row = configuration.split("\n").find((line) => line.startsWith(`| \`${variable.name}\` |`))
      assert.isDefined(row, variable.name)
      if (variable.default !== undefined) assert.include(row!, `\`${variable.default}\``, variable.name)
    }
  })
})

describe("docs/gateway.md", () => {
  it("shows the gateway route tables as declared (HTTP and WebSockets)", () => {
    const gateway = read("docs/gateway.md")
    for (const route of GatewayRoutes) assert.include(gateway, `| \`${route.prefix}\` | ${route.service} |`)
    for (const route of GatewayWebSocketRoutes) assert.include(gateway, `| \`${route.prefix}\` | ${route.service} |`)
  })
})

describe("docs/deployment.md", () => {
  it("shows every role", () => {
    const deployment = read("docs/deployment.md")
    for (const text of ["`start`", "`serve platform-core`", "`serve gateway`", "`runner`", "`migrate`"]) {
      assert.include(deployment, text)
    }
  })
})

describe("docs/testing.md testing example", () => {
  it("is the test file it says it is, verbatim (so it runs with npm test)", () => {
    const block = read("docs/testing.md").split("<!-- testkit-example -->")[1]?.match(/```ts\n([\s\S]*?)```/)
    assert.isDefined(block?.[1], "docs/testing.md has the example after its marker")
    const file = fs.readFileSync(
      fileURLToPath(new URL("../../runner/test/ReadmeExample.test.ts", import.meta.url)),
      "utf8"
    )
    assert.strictEqual(block![1], file)
  })
})

describe("docs/webhooks.md webhook verification snippet", () => {
  it("accepts what the dispatcher signs, and refuses a changed body, a wrong secret and an old timestamp", async () => {
    const block = read("docs/webhooks.md").split("<!-- webhook-verification-snippet -->")[1]?.match(
      /```js\n([\s\S]*?)```/
    )
    assert.isDefined(block?.[1], "docs/webhooks.md has the snippet after its marker")
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

describe("markdown links", () => {
  it("reads GitHub's anchors and the links as GitHub does", () => {
    const sample = [
      "# The production topology on one machine: `npm run cluster:local`",
      "## Stopping",
      "## Stopping",
      "## A [linked](x.md) MAX_BODY_SIZE, café!",
      "```sh",
      "# a comment, not a heading: [not](a-link.md)",
      "```",
      "See [`redocly.yaml`](../redocly.yaml), ![img](pic.png \"title\") and `[code](not-a-link.md)`."
    ].join("\n")
    assert.deepStrictEqual(
      [...headingAnchors(sample)],
      [
        "the-production-topology-on-one-machine-npm-run-clusterlocal",
        "stopping",
        "stopping-1",
        "a-linked-max_body_size-café"
      ]
    )
    assert.deepStrictEqual(linkTargets(sample), ["x.md", "../redocly.yaml", "pic.png"])
  })

  for (const file of markdownFiles) {
    it(`${file}: every relative link reaches a file of the repository, and its #anchor a heading there`, () => {
      const broken = brokenLinks(file, read(file))
      assert.deepStrictEqual(broken, [], `${file}: ${broken.join("; ")}`)
    })
  }

  it("finds a broken link, a missing file and a missing anchor (so the checks above can fail)", () => {
    const sample = [
      "[fine](docs/calls.md#inbound-calls) [self](#a-heading) [out](../shared/spec/x.md) [web](https://example.com/#x)",
      "## A heading",
      "[gone](docs/no-such-page.md) [wrong anchor](docs/calls.md#no-such-heading) [anchor in " +
      "code](packages/server/package.json#x)"
    ].join("\n")
    assert.deepStrictEqual(brokenLinks("README.md", sample), [
      "docs/no-such-page.md: no such file",
      "docs/calls.md#no-such-heading: no such heading",
      "packages/server/package.json#x: an anchor into a file that is not markdown"
    ])
  })
})
