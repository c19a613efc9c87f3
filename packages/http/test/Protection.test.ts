import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { assert, describe, it } from "@effect/vitest"
import { MAX_CSV_BYTES } from "@voiceagent/domain/CampaignApi"
import {
  MAX_DOCUMENT_CHARS,
  MAX_FAQ_ANSWER,
  MAX_FAQ_PAIRS,
  MAX_FAQ_QUESTION,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FILES
} from "@voiceagent/domain/KnowledgeBases"
import { generateApiKey } from "@voiceagent/http/Auth/ApiKeyFormat"
import {
  bodyLimitFor,
  clientAddress,
  defaultProtection,
  identify,
  type Identity,
  LargeBodyRoutes,
  makeRateLimiter,
  normalizeAddress
} from "@voiceagent/http/Gateway/Protection"
import { TokenBuckets } from "@voiceagent/http/Gateway/TokenBuckets"
import { MAX_READ_BODY_BYTES } from "@voiceagent/http/RequestContext"
import { Effect, TestClock } from "effect"

const MiB = 1024 * 1024
const key = (address = "198.51.100.1") =>
  identify(`Bearer ${generateApiKey()}`, address) as Extract<Identity, { _tag: "ApiKey" }>
const anonymous = (address: string): Identity => ({ _tag: "Address", address })

describe("token buckets", () => {
  it.effect("allow the burst, then refuse with Retry-After until a token has refilled", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ apiKeyRate: { perSecond: 0.5, burst: 3 }, ipRate: undefined })
      const k = key()
      const first = yield* limiter.admit(k)
      assert.deepStrictEqual(first, { allowed: true, limit: 3, remaining: 2, resetSeconds: 2, retryAfterSeconds: 0 })
      assert.strictEqual((yield* limiter.admit(k))!.remaining, 1)
      assert.strictEqual((yield* limiter.admit(k))!.remaining, 0)
      const refused = (yield* limiter.admit(k))!
      assert.deepStrictEqual(refused, { allowed: false, limit: 3, remaining: 0, resetSeconds: 6, retryAfterSeconds: 2 })
      yield* TestClock.adjust("1500 millis")
      // 0.75 of a token: still refused, and the wait is rounded up to whole seconds
      assert.deepInclude((yield* limiter.admit(k))!, { allowed: false, retryAfterSeconds: 1 })
      yield* TestClock.adjust("500 millis")
      assert.deepInclude((yield* limiter.admit(k))!, { allowed: true, remaining: 0 })
      assert.isFalse((yield* limiter.admit(k))!.allowed)
    }))

  it.effect("refill with time up to the burst, never beyond", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ apiKeyRate: { perSecond: 2, burst: 4 }, ipRate: undefined })
      const k = key()
      for (let i = 0; i < 4; i++) assert.isTrue((yield* limiter.admit(k))!.allowed)
      assert.isFalse((yield* limiter.admit(k))!.allowed)
      yield* TestClock.adjust("1 second")
      assert.isTrue((yield* limiter.admit(k))!.allowed)
      assert.isTrue((yield* limiter.admit(k))!.allowed)
      assert.isFalse((yield* limiter.admit(k))!.allowed)
      yield* TestClock.adjust("1 hour")
      let allowed = 0
      for (let i = 0; i < 10; i++) if ((yield* limiter.admit(k))!.allowed) allowed++
      assert.strictEqual(allowed, 4)
    }))

  it.effect("keep each API key apart: one key's exhaustion does not touch another's", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ apiKeyRate: { perSecond: 1, burst: 2 }, ipRate: { perSecond: 1, burst: 10 } })
      const a = key("198.51.100.9")
      const b = key("198.51.100.9")
      assert.notStrictEqual(a.hash, b.hash)
      for (let i = 0; i < 2; i++) assert.isTrue((yield* limiter.admit(a))!.allowed)
      assert.isFalse((yield* limiter.admit(a))!.allowed)
      assert.deepInclude((yield* limiter.admit(b))!, { allowed: true, remaining: 1 })
    }))

  it.effect("charge requests without an API key to their address, each address apart", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ apiKeyRate: { perSecond: 1, burst: 100 }, ipRate: { perSecond: 1, burst: 3 } })
      const session = identify("Bearer aaa.bbb.ccc", "203.0.113.5")
      const otherSession = identify("Bearer ddd.eee.fff", "203.0.113.5")
      assert.deepStrictEqual(session, anonymous("203.0.113.5"))
      assert.deepStrictEqual(identify(undefined, "203.0.113.5"), anonymous("203.0.113.5"))
      assert.isTrue((yield* limiter.admit(session))!.allowed)
      assert.isTrue((yield* limiter.admit(otherSession))!.allowed)
      assert.isTrue((yield* limiter.admit(anonymous("203.0.113.5")))!.allowed)
      assert.deepInclude((yield* limiter.admit(session))!, { allowed: false, retryAfterSeconds: 1 })
      assert.isTrue((yield* limiter.admit(anonymous("203.0.113.6")))!.allowed)
    }))

  it.effect("charge a key's first request to its address too, and again after the service refused the key", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ apiKeyRate: { perSecond: 1, burst: 100 }, ipRate: { perSecond: 1, burst: 3 } })
      // a working key pays its address once, then only its own bucket
      const working = key("192.0.2.1")
      for (let i = 0; i < 10; i++) assert.isTrue((yield* limiter.admit(working))!.allowed)
      assert.strictEqual(limiter.size().addresses, 1)
      assert.isTrue((yield* limiter.admit(anonymous("192.0.2.1")))!.allowed)
      assert.isTrue((yield* limiter.admit(anonymous("192.0.2.1")))!.allowed)
      assert.isFalse(
        (yield* limiter.admit(anonymous("192.0.2.1")))!.allowed,
        "10 keyed requests cost the address one token"
      )
      // made-up keys (their checksums are right: anyone can compute one) stop at the address's burst
      for (let i = 0; i < 3; i++) {
        const madeUp = key("192.0.2.2")
        assert.isTrue((yield* limiter.admit(madeUp))!.allowed)
        limiter.refused(madeUp)
      }
      const fourth = key("192.0.2.2")
      assert.deepInclude((yield* limiter.admit(fourth))!, { allowed: false, limit: 3 })
      assert.isFalse(limiter.size().apiKeys > 1, "refused keys leave no bucket behind")
      // and so does one refused key presented again and again
      const revoked = key("192.0.2.3")
      for (let i = 0; i < 3; i++) {
        assert.isTrue((yield* limiter.admit(revoked))!.allowed)
        limiter.refused(revoked)
      }
      assert.isFalse((yield* limiter.admit(revoked))!.allowed)
    }))

  it.effect("leave a kind unlimited when its rate is not set", () =>
    Effect.gen(function*() {
      const limiter = makeRateLimiter({ apiKeyRate: undefined, ipRate: { perSecond: 1, burst: 1 } })
      const k = key("192.0.2.9")
      for (let i = 0; i < 5; i++) assert.isUndefined(yield* limiter.admit(k))
      assert.isTrue((yield* limiter.admit(anonymous("192.0.2.9")))!.allowed)
      assert.isFalse((yield* limiter.admit(anonymous("192.0.2.9")))!.allowed)
    }))

  it("stay within maxBuckets under a flood of identities, and forget refilled buckets as they go", () => {
    const buckets = new TokenBuckets({ perSecond: 1, burst: 5 }, 100)
    for (let i = 0; i < 10_000; i++) buckets.take(`flood-${i}`, i)
    assert.strictEqual(buckets.size, 100)

    const idle = new TokenBuckets({ perSecond: 1, burst: 5 }, 1_000)
    for (let i = 0; i < 50; i++) idle.take(`early-${i}`, 0)
    assert.strictEqual(idle.size, 50)
    // five seconds later every early bucket is full again, the same as no bucket: each take drops two
    for (let i = 0; i < 25; i++) idle.take(`late-${i}`, 5_000)
    assert.strictEqual(idle.size, 25)
    // a bucket still refilling is kept
    idle.take("busy", 5_000)
    idle.take("busy", 5_000)
    for (let i = 0; i < 30; i++) idle.take(`later-${i}`, 5_001)
    assert.isTrue(idle.has("busy"))
  })

  it("refuse nonsensical settings", () => {
    assert.throws(() => new TokenBuckets({ perSecond: 0, burst: 5 }, 10))
    assert.throws(() => new TokenBuckets({ perSecond: 1, burst: 0 }, 10))
  })
})

describe("identities", () => {
  it("hash API keys, and set keys with a bad checksum apart without a bucket of their own", () => {
    const real = generateApiKey()
    const id = identify(`bearer ${real}`, "192.0.2.1")
    assert.strictEqual(id._tag, "ApiKey")
    assert.notInclude(JSON.stringify(id), real, "the key itself is not kept")
    const tampered = real.slice(0, -1) + (real.endsWith("A") ? "B" : "A")
    assert.deepStrictEqual(identify(`Bearer ${tampered}`, "192.0.2.1"), { _tag: "BadApiKey", address: "192.0.2.1" })
    assert.deepStrictEqual(identify(`Bearer Bearer ${real}`, "192.0.2.1"), { _tag: "BadApiKey", address: "192.0.2.1" })
    assert.deepStrictEqual(identify("Basic dXNlcjpwYXNz", "192.0.2.1"), { _tag: "Address", address: "192.0.2.1" })
  })

  it("normalize addresses: ports and brackets dropped, IPv4-mapped IPv6 as IPv4, IPv6 by its /64", () => {
    assert.strictEqual(normalizeAddress("203.0.113.7"), "203.0.113.7")
    assert.strictEqual(normalizeAddress(" 203.0.113.7:51234 "), "203.0.113.7")
    assert.strictEqual(normalizeAddress("::ffff:203.0.113.7"), "203.0.113.7")
    assert.strictEqual(normalizeAddress("2001:db8:aa:bb:1:2:3:4"), "2001:db8:aa:bb::/64")
    assert.strictEqual(normalizeAddress("2001:DB8:aa:bb::99"), "2001:db8:aa:bb::/64")
    assert.strictEqual(normalizeAddress("[2001:db8:aa:bb::1]:443"), "2001:db8:aa:bb::/64")
    assert.strictEqual(normalizeAddress("2001:db8::1"), "2001:db8:0:0::/64")
    assert.strictEqual(normalizeAddress("::1"), "0:0:0:0::/64")
    assert.strictEqual(normalizeAddress("fe80::1%eth0"), "fe80:0:0:0::/64")
  })

  it(
    "take the client address from the connection, or as many places from the right of X-Forwarded-For as there are " +
      "trusted proxies",
    () => {
      const request = (xff: string | undefined) =>
        HttpServerRequest.fromWeb(
          new Request("http://gw/api/v1/agents", { headers: xff === undefined ? {} : { "x-forwarded-for": xff } })
        )
          .modify({ remoteAddress: "10.0.0.2" })
      assert.strictEqual(
        clientAddress(request("198.51.100.1"), 0),
        "10.0.0.2",
        "no trusted proxy: the header is the client's own"
      )
      assert.strictEqual(clientAddress(request("198.51.100.1"), 1), "198.51.100.1")
      assert.strictEqual(
        clientAddress(request("1.1.1.1, 198.51.100.1"), 1),
        "198.51.100.1",
        "entries the client wrote are ignored"
      )
      assert.strictEqual(clientAddress(request("1.1.1.1, 198.51.100.1, 10.0.0.9"), 2), "198.51.100.1")
      assert.strictEqual(clientAddress(request(undefined), 1), "10.0.0.2", "no header: the connection")
    }
  )
})

describe("body limits", () => {
  it(
    "give ordinary routes MAX_BODY_SIZE and the large-body routes their documented maxima, capped by MAX_UPLOAD_SIZE",
    () => {
      const options = defaultProtection
      assert.strictEqual(bodyLimitFor(options, "POST", "/api/v1/agents"), MiB)
      assert.strictEqual(bodyLimitFor(options, "POST", "/api/v1/contact-lists/abc/upload"), MAX_CSV_BYTES + MiB)
      assert.strictEqual(bodyLimitFor(options, "POST", "/api/v1/contact-lists/abc/contacts/bulk"), 2 * MAX_CSV_BYTES)
      assert.strictEqual(bodyLimitFor(options, "POST", "/api/v1/knowledge-bases/abc/sources"), 16 * MiB)
      assert.strictEqual(bodyLimitFor(options, "POST", "/api/v1/knowledge-bases/abc/documents/upload"), 101 * MiB)
      // whole segments and the method matter
      assert.strictEqual(bodyLimitFor(options, "POST", "/api/v1/contact-lists/abc/upload/x"), MiB)
      assert.strictEqual(bodyLimitFor(options, "PATCH", "/api/v1/contact-lists/abc/upload"), MiB)
      const capped = { ...options, maxUploadBytes: 2 * MiB }
      assert.strictEqual(bodyLimitFor(capped, "POST", "/api/v1/knowledge-bases/abc/documents/upload"), 2 * MiB)
      assert.strictEqual(bodyLimitFor(capped, "POST", "/api/v1/agents"), MiB)
    }
  )

  it("fit what each large-body route documents, and the services read no less than the gateway lets through", () => {
    const limitOf = (path: string) => bodyLimitFor({ ...defaultProtection, maxUploadBytes: Infinity }, "POST", path)
    assert.isAtLeast(limitOf("/api/v1/contact-lists/x/upload"), MAX_CSV_BYTES)
    assert.isAtLeast(limitOf("/api/v1/knowledge-bases/x/documents/upload"), MAX_UPLOAD_FILES * MAX_UPLOAD_BYTES)
    const longestSource = Math.max(MAX_DOCUMENT_CHARS, MAX_FAQ_PAIRS * (MAX_FAQ_QUESTION + MAX_FAQ_ANSWER))
    assert.isAtLeast(limitOf("/api/v1/knowledge-bases/x/sources"), 3 * longestSource)
    assert.strictEqual(defaultProtection.maxUploadBytes, Math.max(...LargeBodyRoutes.map((r) => r.bytes)))
    // JSON is read whole by the services, up to their own ceiling
    for (
      const path of ["/api/v1/contact-lists/x/contacts/bulk", "/api/v1/knowledge-bases/x/sources", "/api/v1/agents"]
    ) {
      assert.isAtMost(limitOf(path), MAX_READ_BODY_BYTES, path)
    }
  })
})
