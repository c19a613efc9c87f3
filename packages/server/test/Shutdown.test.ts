/**
 * SIGTERM on the `start` role (everything in one process, on PGlite): the requests in flight get
 * their answers, an idle keep-alive connection is closed at once, every port refuses new
 * connections, a request still unfinished when SHUTDOWN_GRACE is over has its connection closed,
 * and the process exits 0. The `serve` roles and the runner are stopped the same way in
 * ClusterLocal.test.ts (PostgreSQL).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import { spawnCli } from "./Cli.js"
import { connectionRefused, scratchDirectory, slowRequest } from "./ClusterLocalTesting.js"

const GRACE_MS = 2_000

const portOf = (url: string) => Number(new URL(url).port)

describe("graceful stop of the start role", () => {
  it.scopedLive(
    "SIGTERM: a slow signup through the gateway is answered, one past the grace is cut, new connections refused, " +
      "exit 0",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* scratchDirectory("vap-shutdown-")
        const cli = yield* spawnCli(["start"], {
          PORT: "0",
          PLATFORM_CORE_PORT: "0",
          COMMS_PORT: "0",
          CAMPAIGN_PORT: "0",
          MEDIA_PORT: "0",
          DATA_DIR: dataDir,
          // no embedded Chroma: the knowledge routes are not used here
          CHROMA_URL: "http://127.0.0.1:9",
          SHUTDOWN_GRACE: `${GRACE_MS} millis`,
          LOG_LEVEL: "info"
        })
        const urls = Object.fromEntries(
          yield* Effect.forEach(["Gateway", "platform-core", "comms", "campaign"], (name) =>
            Effect.map(cli.waitFor(new RegExp(`  ${name}\\s+(http://127\\.0\\.0\\.1:\\d+)`)), ([, url]) =>
              [name, url!] as const))
        )

        // a kept-alive idle connection, as a proxy or client pool holds them
        const idleAgent = new http.Agent({ keepAlive: true })
        yield* Effect.promise(() =>
          new Promise<void>((resolve) =>
            http.get(`${urls["comms"]}/healthz`, { agent: idleAgent }, (r) =>
              r.resume().on("end", resolve))
          )
        )
        assert.strictEqual(Object.values(idleAgent.freeSockets).flat().length, 1)

        const signup = (email: string) =>
          slowRequest("POST", `${urls["Gateway"]}/api/v1/auth/signup`, {
            json: { email, password: "correct horse battery", companyName: "Slow" }
          })
        const finished = yield* signup("finishes@example.com")
        const unfinished = yield* signup("never-finishes@example.com")
        yield* Effect.sleep("400 millis")
        const signalled = Date.now()
        cli.child.kill("SIGTERM")
        // each server logs this line once it has stopped accepting connections
        for (const name of ["gateway", "platform-core", "comms", "campaign"]) {
          yield* cli.waitFor(new RegExp(`${name} stopping: no new connections`), 10_000)
        }
        for (const [name, url] of Object.entries(urls)) {
          assert.isTrue(yield* connectionRefused(portOf(url)), `${name} refuses new connections`)
        }
        assert.strictEqual(Object.values(idleAgent.freeSockets).flat().length, 0, "the idle connection was closed")
        yield* finished.finish
        const answer = yield* finished.answer
        assert.deepInclude(answer, { status: 201, connection: "close" })
        // cut when the grace is over: by the gateway (a reset), or, when platform-core's own grace ran out
        // first (the two servers stop at the same instant in this process), answered 502 by the gateway
        const cut = yield* unfinished.answer
        if ("error" in cut) {
          assert.deepStrictEqual(cut, { error: "ECONNRESET" }, "cut when the grace is over")
        } else {assert.deepInclude(cut, {
            status: 502,
            connection: "close",
            body: {
              error: {
                code: "UPSTREAM_UNAVAILABLE",
                message: "The platform-core service is not reachable",
                requestId: (cut.body as any)?.error?.requestId
              }
            }
          })}
        const code = yield* cli.exited
        const stoppedMs = Date.now() - signalled
        assert.strictEqual(code, 0)
        assert.isAtLeast(stoppedMs, GRACE_MS)
        assert.isBelow(stoppedMs, GRACE_MS + 3_000)
        assert.match(cli.output(), /gateway stopping: no new connections, 2 request\(s\) in flight/)
        assert.match(cli.output(), /gateway: 1 request\(s\) still in flight after 2s: closing their connections/)
        assert.match(cli.output(), /start: stopped in \d+ ms/)
        idleAgent.destroy()
        console.log(
          `start role: SIGTERM → answered the finished request, cut the other at the grace, exited 0 after ` +
            `${stoppedMs} ms`
        )
      }),
    { timeout: 120_000 }
  )
})
