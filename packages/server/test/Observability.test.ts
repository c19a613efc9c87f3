/**
 * `/metrics` on every server of the platform, read as Prometheus reads it, while real work happens;
 * OpenTelemetry traces exported to a collector on loopback, one trace from the gateway to the carrier.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import { Context, Effect, Layer } from "effect"
import * as FakeOtlpCollector from "./FakeOtlpCollector.js"
import { callReady, get, openAllDay, post, waitUntil } from "./Http.js"

// spans leave in batches; a short delay keeps the test short (read when the processor is made)
process.env["OTEL_BSP_SCHEDULE_DELAY"] = "100"

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** The text exposition format: `name{label="value",…} value`, comments skipped. */
const parse = (text: string): ReadonlyArray<Sample> =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!
    }
    return { name: match[1]!, labels, value: Number(match[3]) }
  })

const find = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

const total = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  find(samples, name, labels).reduce((sum, s) => sum + s.value, 0)

const scrape = (base: string) =>
  Effect.gen(function*() {
    const reply = yield* get(`${base}/metrics`)
    assert.strictEqual(reply.status, 200, reply.text)
    assert.match(reply.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/)
    return parse(reply.text)
  })

const originOf = (apiBase: string) => apiBase.replace(/\/api\/v1$/, "")

const setUp = (
  gateway: string,
  provider: "PROVIDER_A" | "PROVIDER_B",
  keyBody: Record<string, unknown> = { name: "k" }
) => callReady(gateway, provider, { keyBody, amount: 10_000 })

describe("/metrics", () => {
  layer(TestPlatform.layer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every server answers in the Prometheus text format, with the cluster's gauges", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        // the embedded runner takes every shard (8 per group in the test platform) soon after it starts
        yield* waitUntil(
          scrape(originOf(urls.gateway)),
          (s) => total(s, "voiceagent_cluster_shards_owned") === 8,
          "8 shards"
        )
        for (const base of [urls.gateway, urls["platform-core"], urls.comms, urls.campaign]) {
          const samples = yield* scrape(originOf(base))
          assert.strictEqual(total(samples, "voiceagent_cluster_shards_owned"), 8, base)
          for (const outbox of ["webhooks", "messages"]) {
            assert.lengthOf(find(samples, "voiceagent_outbox_depth", { outbox }), 1, `${base}: ${outbox} depth`)
            assert.lengthOf(
              find(samples, "voiceagent_outbox_oldest_age_seconds", { outbox }),
              1,
              `${base}: ${outbox} age`
            )
          }
        }
        const reply = yield* get(`${originOf(urls.gateway)}/metrics`)
        assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", "security headers on /metrics too")
      }))

    it.effect("requests are timed by service, route template and status; ids never become labels", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const user = yield* setUp(gateway, "PROVIDER_A")
        const missing = "00000000-0000-7000-8000-000000000000"
        assert.strictEqual((yield* get(`${gateway}/agents/${user.agentId}`, { token: user.key })).status, 200)
        assert.strictEqual((yield* get(`${gateway}/agents/${missing}`, { token: user.key })).status, 404)
        assert.strictEqual((yield* get(`${gateway}/no-such-route`)).status, 404)
        const samples = yield* scrape(originOf(gateway))
        const route = "/api/v1/agents/:id"
        for (const service of ["gateway", "comms"]) {
          for (const status of ["200", "404"]) {
            const count = total(samples, "http_server_request_duration_seconds_count", {
              service,
              route,
              method: "GET",
              status
            })
            assert.isAtLeast(count, 1, `${service} ${status}`)
          }
        }
        const buckets = find(samples, "http_server_request_duration_seconds_bucket", {
          service: "comms",
          route,
          status: "200"
        })
        assert.isAtLeast(buckets.length, 12, "Prometheus' default buckets and +Inf")
        assert.strictEqual(
          buckets.find((b) => b.labels["le"] === "+Inf")!.value,
          total(samples, "http_server_request_duration_seconds_count", { service: "comms", route, status: "200" })
        )
        assert.isAtLeast(
          total(samples, "http_server_request_duration_seconds_count", { service: "gateway", route: "unmatched" }),
          1
        )
        const text = (yield* get(`${originOf(gateway)}/metrics`)).text
        assert.notInclude(text, user.agentId, "no id in any label")
      }))

    it.effect(
      "a call moves through the live-calls gauge, counts its dial and its wallet operations; undelivered webhooks " +
        "show in the outbox",
      () =>
        Effect.gen(function*() {
          const { gateway } = yield* TestPlatform.TestPlatformUrls
          // webhooks to a closed port stay in the outbox
          const user = yield* setUp(gateway, "PROVIDER_A", { name: "k", webhookUrl: "http://127.0.0.1:9/hook" })
          const base = originOf(gateway)
          const before = yield* scrape(base)
          const placed = yield* post(`${gateway}/channels/voice/call`, {
            token: user.key,
            // the simulated carrier answers …0003 after the ring and talks for 3 seconds
            json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550003" }
          })
          assert.strictEqual(placed.status, 202, placed.text)
          const talking = yield* waitUntil(
            scrape(base),
            (s) => total(s, "voiceagent_live_calls", { state: "IN_PROGRESS" }) >= 1,
            "a call in progress"
          )
          assert.strictEqual(
            total(talking, "voiceagent_dial_attempts_total", { provider: "PROVIDER_A", result: "placed" }) -
              total(before, "voiceagent_dial_attempts_total", { provider: "PROVIDER_A", result: "placed" }),
            1
          )
          assert.isAtLeast(
            total(talking, "voiceagent_wallet_operations_total", { operation: "reserve", outcome: "ok" }) -
              total(before, "voiceagent_wallet_operations_total", { operation: "reserve", outcome: "ok" }),
            1
          )
          const ended = yield* waitUntil(
            scrape(base),
            (s) =>
              total(s, "voiceagent_live_calls") === 0 &&
              total(s, "voiceagent_outbox_depth", { outbox: "webhooks" }) >= 1,
            "the call ended and its webhook waits"
          )
          assert.isAtLeast(
            total(ended, "voiceagent_wallet_operations_total", { operation: "settle", outcome: "ok" }) -
              total(before, "voiceagent_wallet_operations_total", { operation: "settle", outcome: "ok" }),
            1
          )
          assert.isAtLeast(total(ended, "voiceagent_outbox_oldest_age_seconds", { outbox: "webhooks" }), 0)
          for (const state of ["QUEUED", "DIALING", "RINGING", "IN_PROGRESS"]) {
            assert.strictEqual(total(ended, "voiceagent_live_calls", { state }), 0, state)
          }
        })
    )

    it.effect("a campaign's dials and its contacts' progress", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const base = originOf(gateway)
        const user = yield* setUp(gateway, "PROVIDER_A")
        const list = (yield* post(`${gateway}/contact-lists`, { token: user.key, json: { name: "metrics" } })).body
        // …0001: answered, a second of talk
        const phones = ["+14155551001", "+14155552001", "+14155553001"]
        const added = yield* post(`${gateway}/contact-lists/${list.id}/contacts/bulk`, {
          token: user.key,
          json: { contacts: phones.map((phoneNumber) => ({ phoneNumber })) }
        })
        assert.strictEqual(added.status, 200, added.text)
        const created = yield* post(`${gateway}/campaigns`, {
          token: user.key,
          json: {
            name: "metrics",
            agentId: user.agentId,
            voiceNumberId: user.voiceNumberId,
            contactListId: list.id,
            ...openAllDay()
          }
        })
        assert.strictEqual(created.status, 201, created.text)
        const before = yield* scrape(base)
        const dialed = (s: ReadonlyArray<Sample>, result: string) =>
          total(s, "voiceagent_campaign_dials_total", { result }) -
          total(before, "voiceagent_campaign_dials_total", { result })
        const scheduled = yield* post(`${gateway}/campaigns/${created.body.id}/schedule`, {
          token: user.key,
          json: { scheduledAt: new Date(Date.now() - 1000).toISOString() }
        })
        assert.strictEqual(scheduled.status, 200, scheduled.text)
        yield* waitUntil(scrape(base), (s) => dialed(s, "dialed") === 3, "three dials")
        const done = yield* waitUntil(
          scrape(base),
          (s) =>
            total(s, "voiceagent_campaigns", { status: "running" }) === 0 &&
            total(s, "voiceagent_campaigns_dialing") === 0,
          "the campaign completed"
        )
        for (const state of ["pending", "in_progress"]) {
          assert.strictEqual(total(done, "voiceagent_campaign_contacts", { state }), 0)
        }
      }))
  })
})

/** The platform with PROVIDER_B numbers on Twilio (a fake of its API on loopback), tracing to a fake collector. */
const Traced = Layer.unwrapScoped(
  Effect.gen(function*() {
    const collector = yield* FakeOtlpCollector.make
    const twilio = yield* FakeTwilio.make()
    return TestPlatform.layer({
      otlpEndpoint: collector.url,
      twilioAuthToken: twilio.authToken,
      runtime: {
        carriers: {
          PROVIDER_B: FakeTwilio.carrier(twilio, "http://127.0.0.1:9")
        }
      }
    }).pipe(Layer.merge(Layer.succeed(Collector, collector)), Layer.merge(Layer.succeed(FakeTwilio.FakeTwilio, twilio)))
  })
)

class Collector extends Context.Tag("test/Collector")<Collector, FakeOtlpCollector.FakeCollector>() {}

describe("OpenTelemetry traces", () => {
  layer(Traced, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("one trace from the gateway through the service and the call's entity to the carrier's API", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const collector = yield* Collector
        const twilio = yield* FakeTwilio.FakeTwilio
        const user = yield* setUp(gateway, "PROVIDER_B")
        const placed = yield* post(`${gateway}/channels/voice/call`, {
          token: user.key,
          json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550123" }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        yield* waitUntil(
          Effect.sync(() => twilio.calls().filter((c) => c.method === "POST")),
          (c) => c.length > 0,
          "the dial"
        )

        const path = "/api/v1/channels/voice/call"
        const isDial = (s: FakeOtlpCollector.CollectedSpan) =>
          s.name === "http.client POST" && String(s.attributes["url.full"] ?? "").startsWith(twilio.url)
        const spans = yield* waitUntil(
          Effect.sync(collector.spans),
          (all) => all.some(isDial),
          "the carrier's span exported"
        )
        // the gateway's server span starts the trace (the test's request carried none)
        const root = spans.find((s) =>
          s.name === "http.server POST" && s.attributes["url.path"] === path && s.parentSpanId === undefined
        )
        assert.isDefined(root, "the gateway's span")
        const trace = spans.filter((s) => s.traceId === root!.traceId)
        const byId = new Map(trace.map((s) => [s.spanId, s]))
        const ancestry = (span: FakeOtlpCollector.CollectedSpan) => {
          const names: Array<string> = []
          for (
            let at: FakeOtlpCollector.CollectedSpan | undefined = span;
            at !== undefined;
            at = at.parentSpanId === undefined ? undefined : byId.get(at.parentSpanId)
          ) {
            names.push(at.name)
          }
          return names.reverse()
        }
        const servers = trace.filter((s) => s.name === "http.server POST" && s.attributes["url.path"] === path)
        assert.lengthOf(servers, 2, "the gateway's and the comms service's server spans")
        const dial = trace.find(isDial)
        assert.isDefined(dial, `the carrier call in the trace; trace: ${trace.map((s) => s.name).join(", ")}`)
        const chain = ancestry(dial!)
        assert.strictEqual(chain[0], "http.server POST", chain.join(" > "))
        assert.include(chain, "http.client POST", "the gateway's proxy request")
        assert.isAtLeast(chain.filter((n) => n === "http.server POST").length, 2, chain.join(" > "))
        assert.isTrue(chain.some((n) => n.includes("LiveCall") && n.includes("Start")), chain.join(" > "))
        assert.isTrue(trace.every((s) => s.service === "voiceagent-start"))
        // probes and scrapes make no spans
        yield* get(`${gateway.replace(/\/api\/v1$/, "")}/healthz`)
        yield* Effect.sleep("300 millis")
        assert.isFalse(collector.spans().some((s) => s.attributes["url.path"] === "/healthz"))
      }))
  })
})
