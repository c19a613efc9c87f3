import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { COMPILED, spawnCli } from "./Cli.js"
import { get, post, signup } from "./Http.js"

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))

// Production runs `npm run build`'s JavaScript with plain node (Dockerfile): on Node 20 a module that
// resolved to a package's TypeScript source would fail to load, so this run proves none does. Once per
// CI run: it boots on PGlite whatever the pass, so the PostgreSQL pass skips it.
describe.skipIf(TestDatabase.postgresUrl() !== undefined)("the compiled build (npm run build, plain node)", () => {
  it.scopedLive(
    "compiles, then the start role boots from dist/ and serves the API and the dashboard",
    () =>
      Effect.gen(function*() {
        const build = spawnSync(process.execPath, [path.join(repoRoot, "scripts/build.mjs")], {
          cwd: repoRoot,
          encoding: "utf8"
        })
        assert.strictEqual(build.status, 0, build.stderr)
        assert.match(build.stdout, /compiled \d+ files/)
        for (const name of ["domain", "runner", "http", "server"]) {
          assert.isTrue(fs.existsSync(path.join(repoRoot, "packages", name, "dist")), `packages/${name}/dist`)
        }

        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-compiled-"))
        const cli = yield* spawnCli(["start"], {
          PORT: "0",
          PLATFORM_CORE_PORT: "0",
          COMMS_PORT: "0",
          CAMPAIGN_PORT: "0",
          MEDIA_PORT: "0",
          LOG_LEVEL: "warn",
          DATA_DIR: dataDir
        }, COMPILED)
        const [, origin] = yield* cli.waitFor(/Gateway\s+(http:\/\/127\.0\.0\.1:\d+)/)
        const gateway = `${origin}/api/v1`
        const account = yield* signup(gateway)
        const key = yield* post(`${gateway}/api-keys`, { token: account.token, json: { name: "compiled" } })
        assert.strictEqual(key.status, 201, key.text)
        const profile = yield* get(`${gateway}/profile`, { token: key.body.key })
        assert.strictEqual(profile.status, 200, profile.text)
        assert.strictEqual(profile.body.user.email, account.email)
        const kb = yield* post(`${gateway}/knowledge-bases`, {
          token: key.body.key,
          json: { kbKey: "compiled-kb", kbName: "Compiled" }
        })
        assert.strictEqual(kb.status, 201, kb.text)
        // the dashboard's bundle (packages/web/dist, built by npm install) found from the compiled gateway
        if (fs.existsSync(path.join(repoRoot, "packages/web/dist/index.html"))) {
          const page = yield* get(`${origin}/`)
          assert.strictEqual(page.status, 200)
          assert.include(page.text, "<html")
        }
        assert.strictEqual(yield* cli.stop("SIGTERM"), 0, cli.output())
      }),
    { timeout: 120_000 }
  )
})
