import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { createKey, del, get, patch, post, signup, uniqueEmail } from "./Http.js"

const count = (table: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*) AS n FROM ${sql(table)}`.pipe(Effect.map(([row]) => row!.n), Effect.orDie)
  )

const expectError = (reply: { status: number; body: any }, status: number, code: string, message?: string) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  assert.strictEqual(reply.body.error.code, code)
  assert.isString(reply.body.error.requestId)
  if (message !== undefined) assert.strictEqual(reply.body.error.message, message)
}

describe("platform core over HTTP", () => {
  layer(TestPlatform.layer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    describe("sign-up and login", () => {
      it.effect("signs up with a company, logs in, and reads the profile", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const email = uniqueEmail()
          const created = yield* post(`${core}/auth/signup`, {
            json: { email: email.toUpperCase(), password: "correct horse battery", companyName: "  Acme Voice  " }
          })
          assert.strictEqual(created.status, 201)
          assert.strictEqual(created.body.user.email, email, "e-mail is normalised to lower case")
          assert.strictEqual(created.body.tenant.name, "Acme Voice")
          assert.strictEqual(created.body.user.tenantId, created.body.tenant.id)
          assert.match(created.body.user.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

          const login = yield* post(`${core}/auth/login`, { json: { email, password: "correct horse battery" } })
          assert.strictEqual(login.status, 200)
          assert.strictEqual(login.body.user.id, created.body.user.id)

          const profile = yield* get(`${core}/profile`, { token: login.body.token })
          assert.strictEqual(profile.status, 200)
          assert.deepStrictEqual(profile.body.tenant, created.body.tenant)
          assert.deepStrictEqual(profile.body.credential, { type: "session", apiKeyId: null })
        }))

      it.effect("refuses a wrong password and an unknown e-mail with the same answer", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const wrong = yield* post(`${core}/auth/login`, {
            json: { email: account.email, password: "not the password" }
          })
          expectError(wrong, 401, "INVALID_CREDENTIALS", "Invalid email or password")
          const unknown = yield* post(`${core}/auth/login`, {
            json: { email: uniqueEmail(), password: "whatever-it-is" }
          })
          expectError(unknown, 401, "INVALID_CREDENTIALS", "Invalid email or password")
        }))

      it.effect("refuses a second account for the same e-mail (any case) and writes nothing", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const [users, tenants] = [yield* count("users"), yield* count("tenants")]
          const again = yield* post(`${core}/auth/signup`, {
            json: { email: account.email.toUpperCase(), password: "another password", companyName: "Second Co" }
          })
          expectError(again, 409, "EMAIL_TAKEN")
          assert.strictEqual(yield* count("users"), users)
          assert.strictEqual(
            yield* count("tenants"),
            tenants,
            "the tenant created in the same transaction is rolled back"
          )
        }))

      it.effect("reports every invalid field with its path, and writes nothing", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const users = yield* count("users")
          const reply = yield* post(`${core}/auth/signup`, { json: { email: "not-an-email", password: "short" } })
          expectError(reply, 400, "VALIDATION_FAILED")
          const paths = (reply.body.error.details as Array<{ path: string }>).map((d) => d.path)
          assert.includeMembers(paths, ["email", "password"])
          const missing = yield* post(`${core}/auth/signup`, { json: {} })
          expectError(missing, 400, "VALIDATION_FAILED")
          assert.strictEqual(yield* count("users"), users)
        }))

      it.effect("answers malformed JSON and wrong shapes with 400, never 5xx", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const bodies = ["{bad json", "[]", "null", "42", "\"text\"", JSON.stringify({ email: 1, password: [] })]
          for (const body of bodies) {
            const reply = yield* post(`${core}/auth/signup`, { body, headers: { "content-type": "application/json" } })
            assert.strictEqual(reply.status, 400, `${body} -> ${reply.text}`)
            assert.isString(reply.body.error.code)
          }
        }))

      it.effect("a user without a company can create its tenant later, once", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core, { companyName: null })
          assert.isNull(account.tenantId)
          const created = yield* post(`${core}/tenants`, { token: account.token, json: { companyName: "Later Ltd" } })
          assert.strictEqual(created.status, 201)
          const profile = yield* get(`${core}/profile`, { token: account.token })
          assert.strictEqual(profile.body.tenant.id, created.body.id)
          const twice = yield* post(`${core}/tenants`, { token: account.token, json: { companyName: "Again" } })
          expectError(twice, 409, "TENANT_EXISTS")
        }))
    })

    describe("Authorization header", () => {
      it.effect("answers each malformed credential with its exact message", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const { key } = yield* createKey(core, account.token)

          expectError(yield* get(`${core}/profile`), 401, "MISSING_CREDENTIALS")
          expectError(yield* get(`${core}/profile`, { headers: { authorization: "" } }), 401, "MISSING_CREDENTIALS")
          expectError(
            yield* get(`${core}/profile`, { headers: { authorization: "Basic dXNlcjpwYXNz" } }),
            401,
            "MALFORMED_AUTHORIZATION"
          )
          expectError(
            yield* get(`${core}/profile`, { headers: { authorization: "Bearer" } }),
            401,
            "MALFORMED_AUTHORIZATION"
          )
          expectError(
            yield* get(`${core}/profile`, { headers: { authorization: key } }),
            401,
            "MALFORMED_AUTHORIZATION"
          )
          expectError(
            yield* get(`${core}/profile`, { headers: { authorization: `Bearer Bearer ${key}` } }),
            401,
            "INVALID_API_KEY",
            "Invalid API key"
          )
          expectError(
            yield* get(`${core}/profile`, { token: "aok_doesnotexist" }),
            401,
            "INVALID_API_KEY",
            "Invalid API key"
          )
          // right shape and checksum, but never issued
          const forged = key.slice(0, 4) + "x".repeat(30)
          expectError(yield* get(`${core}/profile`, { token: forged }), 401, "INVALID_API_KEY", "Invalid API key")
          expectError(yield* get(`${core}/profile`, { token: "garbage" }), 401, "INVALID_API_KEY", "Invalid API key")
          expectError(yield* get(`${core}/profile`, { token: "aaa.bbb.ccc" }), 401, "INVALID_SESSION")

          // the scheme is case-insensitive
          const lower = yield* get(`${core}/profile`, { headers: { authorization: `bearer ${key}` } })
          assert.strictEqual(lower.status, 200)
        }))

      it.effect("refuses a session token signed with another secret", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const [header, payload] = account.token.split(".")
          const tampered = `${header}.${payload}.${"A".repeat(43)}`
          expectError(
            yield* get(`${core}/profile`, { token: tampered }),
            401,
            "INVALID_SESSION",
            "Invalid session token"
          )
        }))
    })

    describe("API keys", () => {
      it.effect("returns the full key and signing secret once, and lists keys without secrets", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const created = yield* post(`${core}/api-keys`, {
            token: account.token,
            json: { name: "production", webhookUrl: "https://example.com/hooks", expiresAt: "2099-01-01T00:00:00Z" }
          })
          assert.strictEqual(created.status, 201)
          assert.match(created.body.key, /^aok_[0-9A-Za-z]{36}$/)
          assert.isTrue(created.body.key.startsWith(created.body.prefix))
          assert.match(created.body.signingSecret, /^whsec_/)
          assert.strictEqual(created.body.expiresAt, "2099-01-01T00:00:00.000Z")
          assert.strictEqual(created.body.webhookUrl, "https://example.com/hooks")

          const sql = yield* SqlClient.SqlClient
          const stored = yield* sql<
            { keyHash: Uint8Array }
          >`SELECT key_hash FROM api_keys WHERE id = ${created.body.id}`
          assert.strictEqual(Buffer.from(stored[0]!.keyHash).length, 32, "only the SHA-256 of the key is stored")

          const listed = yield* get(`${core}/api-keys`, { token: account.token })
          assert.strictEqual(listed.status, 200)
          assert.strictEqual(listed.body.total, 1)
          const [item] = listed.body.items
          assert.strictEqual(item.id, created.body.id)
          assert.isUndefined(item.key)
          assert.isUndefined(item.signingSecret)
          assert.isNull(item.lastUsedAt)
          assert.notInclude(listed.text, created.body.key)

          const used = yield* get(`${core}/profile`, { token: created.body.key })
          assert.strictEqual(used.status, 200)
          assert.deepStrictEqual(used.body.credential, { type: "api_key", apiKeyId: created.body.id })
          const after = yield* get(`${core}/api-keys`, { token: account.token })
          assert.isString(after.body.items[0].lastUsedAt)
        }))

      it.effect("API-key management accepts only dashboard sessions", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const { id, key } = yield* createKey(core, account.token)
          const message = "API key authentication is not allowed for this route"
          expectError(yield* get(`${core}/api-keys`, { token: key }), 403, "API_KEY_NOT_ALLOWED", message)
          expectError(
            yield* post(`${core}/api-keys`, { token: key, json: { name: "x" } }),
            403,
            "API_KEY_NOT_ALLOWED",
            message
          )
          expectError(yield* del(`${core}/api-keys/${id}`, { token: key }), 403, "API_KEY_NOT_ALLOWED", message)
          expectError(
            yield* post(`${core}/tenants`, { token: key, json: { companyName: "x" } }),
            403,
            "API_KEY_NOT_ALLOWED",
            message
          )
        }))

      it.effect("revocation takes effect on the very next request", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const { id, key } = yield* createKey(core, account.token)
          assert.strictEqual((yield* get(`${core}/profile`, { token: key })).status, 200)
          const revoked = yield* del(`${core}/api-keys/${id}`, { token: account.token })
          assert.strictEqual(revoked.status, 204)
          assert.strictEqual(revoked.text, "")
          expectError(yield* get(`${core}/profile`, { token: key }), 401, "INVALID_API_KEY", "Invalid API key")
          expectError(yield* del(`${core}/api-keys/${id}`, { token: account.token }), 404, "API_KEY_NOT_FOUND")
          const listed = yield* get(`${core}/api-keys`, { token: account.token })
          assert.strictEqual(listed.body.total, 0)
        }))

      it.effect(
        "a key in use (cached): its revocation, its tenant's new name and its user's new tenant count at once on " +
          "every service",
        () =>
          Effect.gen(function*() {
            const { comms, gateway, "platform-core": core } = yield* TestPlatform.TestPlatformUrls
            const account = yield* signup(core)
            const { id, key } = yield* createKey(core, account.token)
            assert.strictEqual((yield* get(`${comms}/agents`, { token: key })).status, 200)
            assert.strictEqual((yield* get(`${core}/profile`, { token: key })).body.tenant.name, "Acme Voice")
            assert.strictEqual(
              (yield* patch(`${core}/tenant`, { token: account.token, json: { name: "Renamed" } })).status,
              200
            )
            assert.strictEqual((yield* get(`${core}/profile`, { token: key })).body.tenant.name, "Renamed")
            assert.strictEqual((yield* get(`${gateway}/tenant`, { token: key })).body.name, "Renamed")
            assert.strictEqual((yield* del(`${core}/api-keys/${id}`, { token: account.token })).status, 204)
            expectError(yield* get(`${comms}/agents`, { token: key }), 401, "INVALID_API_KEY")
            expectError(yield* get(`${gateway}/profile`, { token: key }), 401, "INVALID_API_KEY")

            const later = yield* signup(core, { companyName: null })
            const laterKey = (yield* createKey(core, later.token)).key
            assert.isNull((yield* get(`${core}/profile`, { token: laterKey })).body.tenant)
            expectError(yield* get(`${comms}/agents`, { token: laterKey }), 403, "TENANT_CONTEXT_REQUIRED")
            const created = yield* post(`${core}/tenants`, { token: later.token, json: { companyName: "Later Ltd" } })
            assert.strictEqual(created.status, 201)
            assert.strictEqual((yield* get(`${core}/profile`, { token: laterKey })).body.tenant.id, created.body.id)
            assert.strictEqual((yield* get(`${comms}/agents`, { token: laterKey })).status, 200)
          })
      )

      it.effect("rotation: create the new key, switch, revoke the old one", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const old = yield* createKey(core, account.token, { name: "v1" })
          const next = yield* createKey(core, account.token, { name: "v2" })
          assert.strictEqual((yield* get(`${core}/tenant`, { token: old.key })).status, 200)
          assert.strictEqual((yield* get(`${core}/tenant`, { token: next.key })).status, 200)
          assert.strictEqual((yield* del(`${core}/api-keys/${old.id}`, { token: account.token })).status, 204)
          assert.strictEqual((yield* get(`${core}/tenant`, { token: old.key })).status, 401)
          assert.strictEqual((yield* get(`${core}/tenant`, { token: next.key })).status, 200)
        }))

      it.effect("another tenant's key is not found, never revoked", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const alice = yield* signup(core)
          const bob = yield* signup(core)
          const { id, key } = yield* createKey(core, alice.token)
          expectError(yield* del(`${core}/api-keys/${id}`, { token: bob.token }), 404, "API_KEY_NOT_FOUND")
          assert.strictEqual((yield* get(`${core}/api-keys`, { token: bob.token })).body.total, 0)
          assert.strictEqual((yield* get(`${core}/profile`, { token: key })).status, 200)
        }))

      it.effect("refuses an expiry in the past and invalid fields, writing nothing", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          const before = yield* count("api_keys")
          expectError(
            yield* post(`${core}/api-keys`, {
              token: account.token,
              json: { name: "old", expiresAt: "2001-01-01T00:00:00Z" }
            }),
            400,
            "EXPIRY_IN_PAST"
          )
          const bad = yield* post(`${core}/api-keys`, {
            token: account.token,
            json: { name: "", webhookUrl: "ftp://example.com", agentId: "not-a-uuid", expiresAt: "tomorrow" }
          })
          expectError(bad, 400, "VALIDATION_FAILED")
          const paths = (bad.body.error.details as Array<{ path: string }>).map((d) => d.path)
          assert.includeMembers(paths, ["name", "webhookUrl", "agentId", "expiresAt"])
          expectError(yield* del(`${core}/api-keys/not-a-uuid`, { token: account.token }), 400, "VALIDATION_FAILED")
          assert.strictEqual(yield* count("api_keys"), before)
        }))

      it.effect("pages through keys", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core)
          for (const name of ["a", "b", "c"]) yield* createKey(core, account.token, { name })
          const first = yield* get(`${core}/api-keys?pageSize=2`, { token: account.token })
          assert.deepStrictEqual(
            {
              total: first.body.total,
              page: first.body.page,
              pageSize: first.body.pageSize,
              totalPages: first.body.totalPages
            },
            { total: 3, page: 1, pageSize: 2, totalPages: 2 }
          )
          assert.deepStrictEqual(first.body.items.map((k: any) => k.name), ["c", "b"], "newest first")
          const second = yield* get(`${core}/api-keys?page=2&pageSize=2`, { token: account.token })
          assert.deepStrictEqual(second.body.items.map((k: any) => k.name), ["a"])
          const beyond = yield* get(`${core}/api-keys?page=5&pageSize=2`, { token: account.token })
          assert.deepStrictEqual([beyond.status, beyond.body.items.length, beyond.body.total], [200, 0, 3])
          const defaults = yield* get(`${core}/api-keys`, { token: account.token })
          assert.strictEqual(defaults.body.pageSize, 20)
          for (
            const query of ["pageSize=101", "pageSize=0", "page=0", "page=abc", "pageSize=1.5", "page=-1", "pageSize="]
          ) {
            const reply = yield* get(`${core}/api-keys?${query}`, { token: account.token })
            expectError(reply, 400, "VALIDATION_FAILED")
          }
        }))
    })

    describe("tenancy", () => {
      it.effect("a key whose user has no tenant is refused on tenant-scoped routes", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(core, { companyName: null })
          const { key } = yield* createKey(core, account.token)
          expectError(
            yield* get(`${core}/tenant`, { token: key }),
            403,
            "TENANT_CONTEXT_REQUIRED",
            "Tenant context required"
          )
          expectError(yield* get(`${core}/tenant`, { token: account.token }), 403, "TENANT_CONTEXT_REQUIRED")
          // routes that are not tenant-scoped still work
          assert.strictEqual((yield* get(`${core}/profile`, { token: key })).status, 200)
        }))

      it.effect("the tenant comes from the credential; a different tenantId is refused and not honoured", () =>
        Effect.gen(function*() {
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          const alice = yield* signup(core)
          const bob = yield* signup(core)
          const { key } = yield* createKey(core, alice.token)

          expectError(yield* get(`${core}/tenant?tenantId=${bob.tenantId}`, { token: key }), 403, "TENANT_MISMATCH")
          const renamed = yield* patch(`${core}/tenant`, {
            token: key,
            json: { name: "Hijacked", tenantId: bob.tenantId }
          })
          expectError(renamed, 403, "TENANT_MISMATCH")
          const bobTenant = yield* get(`${core}/tenant`, { token: bob.token })
          assert.notStrictEqual(bobTenant.body.name, "Hijacked")
          const aliceTenant = yield* get(`${core}/tenant`, { token: key })
          assert.notStrictEqual(aliceTenant.body.name, "Hijacked")

          const same = yield* patch(`${core}/tenant`, {
            token: key,
            json: { name: "Alice Co", tenantId: alice.tenantId }
          })
          assert.strictEqual(same.status, 200)
          assert.strictEqual(same.body.id, alice.tenantId)
          assert.strictEqual(same.body.name, "Alice Co")
        }))
    })

    describe("service basics", () => {
      it.effect("every service and the gateway answer /healthz and /readyz", () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          for (const [name, base] of Object.entries(urls)) {
            const origin = base.replace(/\/api\/v1$/, "")
            const alive = yield* get(`${origin}/healthz`)
            // every one of them in this process: each answer names it
            assert.deepStrictEqual([alive.status, alive.body.status, alive.body.service, alive.body.pid], [
              200,
              "ok",
              name,
              process.pid
            ])
            const ready = yield* get(`${origin}/readyz`)
            assert.strictEqual(ready.status, 200, ready.text)
            assert.deepStrictEqual([ready.body.status, ready.body.pid], ["ready", process.pid])
          }
        }))

      it.effect("unknown routes are JSON 404s with a request id header", () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          for (const service of ["platform-core", "comms", "campaign"] as const) {
            const reply = yield* get(`${urls[service]}/does-not-exist`)
            expectError(reply, 404, "ROUTE_NOT_FOUND", "No route for GET /api/v1/does-not-exist")
            assert.strictEqual(reply.headers.get("x-request-id"), reply.body.error.requestId)
          }
        }))

      it.effect("each service serves its OpenAPI document and an offline reference page", () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const spec = yield* get(`${urls["platform-core"]}/openapi.json`)
          assert.strictEqual(spec.body.openapi, "3.1.0")
          assert.property(spec.body.paths, "/api/v1/api-keys")
          const errorSchema = JSON.stringify(spec.body.components.schemas["API_KEY_EXPIRED"])
          assert.include(errorSchema, "requestId")
          const docs = yield* get(`${urls["platform-core"].replace(/\/api\/v1$/, "")}/docs`)
          assert.strictEqual(docs.status, 200)
          // nothing the page loads comes from another origin: the reference script is inlined from npm
          assert.notMatch(docs.text, /<(script|link|img)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?\/\//i)
          assert.include(docs.text, "\"withDefaultFonts\":false")
        }))
    })
  })
})
