import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawnCli } from "./Cli.js"
import { get, post, signup, waitUntil } from "./Http.js"

/** Alive and not a zombie. */
const isRunning = (pid: number) => {
  try {
    return !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

const freshDataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "vap-start-"))

const randomPorts = {
  PORT: "0",
  PLATFORM_CORE_PORT: "0",
  COMMS_PORT: "0",
  CAMPAIGN_PORT: "0",
  MEDIA_PORT: "0",
  LOG_LEVEL: "warn"
}

/** On the PostgreSQL pass of CI the role runs against a scratch database; otherwise on PGlite. */
const databaseEnv = Effect.gen(function*() {
  const url = TestDatabase.postgresUrl()
  if (url === undefined) return {}
  const scratch = yield* TestDatabase.scratchPostgresDatabase(url)
  return { DATABASE_URL: scratch.url }
})

describe("the start role (npm start)", () => {
  it.scopedLive(
    "boots on random ports, then signs up, creates a key and calls an authenticated route",
    () =>
      Effect.gen(function*() {
        const dataDir = freshDataDir()
        const db = yield* databaseEnv
        const cli = yield* spawnCli(["start"], { ...randomPorts, ...db, DATA_DIR: dataDir })
        const [, gatewayOrigin] = yield* cli.waitFor(/Gateway\s+(http:\/\/127\.0\.0\.1:\d+)/)
        const gateway = `${gatewayOrigin}/api/v1`
        assert.include(cli.output(), "Get credentials:")
        assert.match(cli.output(), /Dashboard\s+http:\/\/127\.0\.0\.1:\d+\//)

        const account = yield* signup(gateway)
        const key = yield* post(`${gateway}/api-keys`, { token: account.token, json: { name: "from the start test" } })
        assert.strictEqual(key.status, 201)
        const profile = yield* get(`${gateway}/profile`, { token: key.body.key })
        assert.strictEqual(profile.status, 200)
        assert.strictEqual(profile.body.user.email, account.email)

        // the embedded Chroma serves knowledge bases; its data lives under DATA_DIR/chroma
        const kb = yield* post(`${gateway}/knowledge-bases`, {
          token: key.body.key,
          json: { kbKey: "start-kb", kbName: "Start" }
        })
        assert.strictEqual(kb.status, 201, kb.text)
        const source = { type: "TEXT", title: "Hours", text: "The depot opens at seven every weekday." }
        yield* post(`${gateway}/knowledge-bases/${kb.body.id}/sources`, { token: key.body.key, json: source })
        const job = yield* post(`${gateway}/knowledge-bases/${kb.body.id}/ingestion-jobs`, { token: key.body.key })
        assert.strictEqual(job.status, 202, job.text)
        const ingested = yield* waitUntil(
          Effect.map(
            get(`${gateway}/knowledge-bases/${kb.body.id}/ingestion-jobs/${job.body.jobId}`, { token: key.body.key }),
            (r) => r.body
          ),
          (body) => body?.status !== "QUEUED" && body?.status !== "RUNNING",
          "the ingestion job to finish",
          60
        )
        assert.strictEqual(ingested.status, "SUCCEEDED", JSON.stringify(ingested))
        const chromaPid = Number(fs.readFileSync(path.join(dataDir, "chroma", "chroma.pid"), "utf8"))

        if (db.DATABASE_URL === undefined) {
          // a second process on the same embedded data is refused, not allowed to corrupt it
          const second = yield* spawnCli(["start"], { ...randomPorts, DATA_DIR: dataDir })
          assert.strictEqual(yield* second.exited, 1)
          assert.match(second.output(), /in use by process \d+/)
        }

        // SIGTERM stops it cleanly, Chroma with it, and the data and session secret survive a restart
        assert.strictEqual(yield* cli.stop("SIGTERM"), 0)
        assert.isFalse(fs.existsSync(path.join(dataDir, "chroma", "chroma.pid")), "Chroma was stopped")
        assert.isFalse(isRunning(chromaPid), "no Chroma process is left behind")
        const again = yield* spawnCli(["start"], { ...randomPorts, ...db, DATA_DIR: dataDir })
        const [, origin2] = yield* again.waitFor(/Gateway\s+(http:\/\/127\.0\.0\.1:\d+)/)
        const sameToken = yield* get(`${origin2}/api/v1/profile`, { token: account.token })
        assert.strictEqual(sameToken.status, 200)
        const sameKey = yield* get(`${origin2}/api/v1/profile`, { token: key.body.key })
        assert.strictEqual(sameKey.status, 200)
        const found = yield* post(`${origin2}/api/v1/knowledge-bases/${kb.body.id}/query`, {
          token: key.body.key,
          json: { query: "when does the depot open?" }
        })
        assert.strictEqual(found.status, 200, found.text)
        assert.include(found.body.items[0]?.text, "opens at seven", "the vectors survived the restart")
        assert.strictEqual(yield* again.stop("SIGTERM"), 0)
        fs.rmSync(dataDir, { recursive: true, force: true })
      }),
    { timeout: 180_000 }
  )

  it.scoped("refuses bad configuration with a message naming the variable", () =>
    Effect.gen(function*() {
      const cli = yield* spawnCli(["start"], { PORT: "eighty", JWT_SECRET: "too-short", DATA_DIR: freshDataDir() })
      assert.strictEqual(yield* cli.exited, 2)
      assert.match(cli.output(), /Invalid configuration/)
      assert.match(cli.output(), /PORT: /)
      assert.match(cli.output(), /JWT_SECRET: must be at least 32 characters/)
    }), { timeout: 60_000 })

  it.scoped("the serve roles require DATABASE_URL and JWT_SECRET", () =>
    Effect.gen(function*() {
      const cli = yield* spawnCli(["serve", "platform-core"], { DATA_DIR: freshDataDir() })
      assert.strictEqual(yield* cli.exited, 2)
      assert.match(cli.output(), /DATABASE_URL: required for role serve platform-core/)
    }), { timeout: 60_000 })

  it.scoped("--help prints the roles, the gateway route table and the environment", () =>
    Effect.gen(function*() {
      const cli = yield* spawnCli(["--help"], {})
      assert.strictEqual(yield* cli.exited, 0)
      const help = cli.output()
      for (
        const text of ["start", "serve", "migrate", "/api/v1/api-keys", "platform-core", "DATABASE_URL", "JWT_SECRET"]
      ) {
        assert.include(help, text)
      }
    }), { timeout: 60_000 })
})
