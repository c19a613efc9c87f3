import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { rawRequest, requestHead, tableCounts } from "./Hostile.js"
import { callReady, get, post, request, signup, uniqueEmail } from "./Http.js"

// What a black-box tester found broken: every one of these answered 5xx, hung, or took a body it
// should have refused. Each request goes through the gateway and straight to the service.

const NUL = "\u0000"
const LONE_SURROGATE = "\ud83d"

const nested = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("hostile input", () => {
  layer(TestPlatform.layer(), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("a NUL or a lone surrogate in any string is a 400 naming the field, and writes nothing", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const ready = yield* callReady(urls.gateway, "PROVIDER_A")
        const list = yield* post(`${urls.gateway}/contact-lists`, { token: ready.key, json: { name: "L" } })
        const cases: ReadonlyArray<readonly [string, string, unknown, string]> = [
          [urls["platform-core"], "/auth/signup", {
            email: uniqueEmail(),
            password: "long enough pw",
            companyName: `Acme${NUL}`
          }, "companyName"],
          ["", "/agents", { name: `A${NUL}`, agent_persona_id: "x" }, "name"],
          ["", `/agents/${ready.agentId}`, { greetMessage: `Hi${LONE_SURROGATE}` }, "greetMessage"],
          ["", `/agents/${ready.agentId}`, { agent_prompt: `p${NUL}` }, "agent_prompt"],
          ["", "/contact-lists", { name: `L${NUL}` }, "name"],
          ["", `/contact-lists/${list.body.id}/contacts`, { phoneNumber: "+14155550100", name: `N${NUL}` }, "name"],
          ["", "/knowledge-bases", { kbKey: "k1", kbName: `K${NUL}` }, "kbName"],
          ["", "/dnc", { phoneNumber: "+14155550100", reason: `r${NUL}` }, "reason"],
          [
            "",
            "/agents",
            { name: "ok", agent_persona_id: "x", metadata: { deep: [{ [`k${NUL}`]: 1 }] } },
            "metadata.deep[0].k"
          ],
          ["", "/channels/voice/call", {
            agentId: ready.agentId,
            voiceNumberId: ready.voiceNumberId,
            toNumber: "+14155550100",
            campaignId: `c${NUL}`
          }, "campaignId"],
          ["", "/channels/voice/call", {
            agentId: ready.agentId,
            voiceNumberId: ready.voiceNumberId,
            toNumber: "+14155550100",
            campaignAttemptId: `${LONE_SURROGATE}x`
          }, "campaignAttemptId"]
        ]
        for (const [direct, path, json, field] of cases) {
          for (const base of [urls.gateway, direct === "" ? serviceOf(urls, path) : direct]) {
            const before = yield* tableCounts
            const method = path.startsWith("/agents/") ? "PATCH" : "POST"
            const reply = yield* request(method, `${base}${path}`, { token: ready.key, json })
            assert.strictEqual(reply.status, 400, `${base}${path}: ${reply.text}`)
            assert.strictEqual(reply.body.error.code, "VALIDATION_FAILED", reply.text)
            assert.isTrue(
              reply.body.error.details.some((d: { path: string }) => d.path.startsWith(field)),
              `${path}: ${field} named in ${reply.text}`
            )
            assert.deepStrictEqual(yield* tableCounts, before, `${path} wrote nothing`)
          }
        }
        // in the query string and the path too
        const query = yield* get(`${urls.gateway}/call-logs?campaignId=%00`, { token: ready.key })
        assert.strictEqual(query.status, 400, query.text)
        assert.strictEqual(query.body.error.details[0].path, "query.campaignId")
        assert.strictEqual((yield* get(`${urls.gateway}/agents/%00`, { token: ready.key })).status, 400)
      }))

    it.effect("bodies that are not JSON are 415 on JSON routes; JSON with a charset or a +json type is read", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const ready = yield* callReady(urls.gateway, "PROVIDER_A")
        const campaign = (yield* post(`${urls.gateway}/contact-lists`, { token: ready.key, json: { name: "L" } })).body
        const sends: ReadonlyArray<readonly [string, string, string, string]> = [
          ["POST", `${urls.comms}/agents`, "application/x-www-form-urlencoded", "name=A&agent_persona_id=x"],
          [
            "POST",
            `${urls.comms}/channels/voice/call`,
            "application/x-www-form-urlencoded",
            `agentId=${ready.agentId}&voiceNumberId=${ready.voiceNumberId}&toNumber=%2B14155550100`
          ],
          ["PATCH", `${urls.comms}/agents/${ready.agentId}`, "application/xml", "<agent><name>B</name></agent>"],
          ["PATCH", `${urls.campaign}/contact-lists/${campaign.id}`, "text/plain", "{\"name\":\"renamed\"}"],
          ["POST", `${urls.campaign}/campaigns/00000000-0000-7000-8000-000000000000/schedule`, "text/plain", "{}"],
          ["POST", `${urls.comms}/agents`, "application/json; charset=latin1", "{\"name\":\"A\"}"]
        ]
        for (const [method, url, type, body] of sends) {
          for (const target of [url, url.replace(/http:\/\/[^/]+/, new URL(urls.gateway).origin)]) {
            const before = yield* tableCounts
            const reply = yield* request(method, target, { token: ready.key, headers: { "content-type": type }, body })
            assert.strictEqual(reply.status, 415, `${method} ${target} ${type}: ${reply.text}`)
            assert.strictEqual(reply.body.error.code, "UNSUPPORTED_MEDIA_TYPE")
            assert.strictEqual(reply.body.error.details.expected, "application/json")
            assert.deepStrictEqual(yield* tableCounts, before)
          }
        }
        // no content type at all, with a body
        const bare = yield* rawRequest(urls.comms, [
          requestHead("POST", `${urls.comms}/agents`, { authorization: `Bearer ${ready.key}`, "content-length": "2" }) +
          "{}"
        ])
        assert.strictEqual(bare.status, 415, bare.head)
        const persona = (yield* get(`${urls.comms}/prompts/personas`, { token: ready.key })).body.items[0]
        for (const type of ["application/json; charset=UTF-8", "application/merge-patch+json", "Application/JSON"]) {
          const reply = yield* request("POST", `${urls.gateway}/agents`, {
            token: ready.key,
            headers: { "content-type": type },
            body: JSON.stringify({ name: "typed", agent_persona_id: persona.id })
          })
          assert.strictEqual(reply.status, 201, `${type}: ${reply.text}`)
        }
        // a bodiless command takes no content type; an empty JSON object is fine too
        const pause = yield* request("POST", `${urls.campaign}/campaigns/00000000-0000-7000-8000-000000000000/pause`, {
          token: ready.key
        })
        assert.strictEqual(pause.status, 404, pause.text)
        // no body, but a media type the route does not read: refused as a body would be (a multipart type
        // without a boundary on a carrier's form callback reached the multipart parser: a 500, found by Fuzz.test)
        for (const base of [urls.gateway, urls.comms]) {
          const empty = yield* rawRequest(base, [
            requestHead("POST", `${base}/telephony/twilio/stream-ended/00000000-0000-7000-8000-000000000000`, {
              "content-type": "multipart/form-data",
              "content-length": "0"
            })
          ])
          assert.strictEqual(empty.status, 415, empty.head)
        }
      }))

    it.effect("JSON nested past the limit is a 400 INVALID_BODY; metadata past its own limit a 400 naming it", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const ready = yield* callReady(urls.gateway, "PROVIDER_A")
        const persona = (yield* get(`${urls.comms}/prompts/personas`, { token: ready.key })).body.items[0]
        for (const base of [urls.gateway, urls.comms]) {
          for (const depth of [40, 3_000, 200_000]) {
            const before = yield* tableCounts
            const body = `{"name":"x","agent_persona_id":"${persona.id}","metadata":${"[".repeat(depth)}${
              "]".repeat(depth)
            }}`
            const reply = yield* request("POST", `${base}/agents`, {
              token: ready.key,
              headers: { "content-type": "application/json" },
              body
            })
            assert.strictEqual(reply.status, 400, reply.text)
            assert.strictEqual(reply.body.error.code, "INVALID_BODY", reply.text)
            assert.deepStrictEqual(reply.body.error.details, { maxDepth: 32 })
            assert.deepStrictEqual(yield* tableCounts, before)
          }
          const lists = base === urls.comms ? urls.campaign : base
          const deep = yield* post(`${lists}/contact-lists`, {
            token: ready.key,
            json: { name: "x", metadata: nested(17) }
          })
          assert.strictEqual(deep.status, 400, deep.text)
          assert.strictEqual(deep.body.error.code, "VALIDATION_FAILED")
          assert.strictEqual(deep.body.error.details[0].path, "metadata")
          const ok = yield* post(`${lists}/contact-lists`, {
            token: ready.key,
            json: { name: `deep via ${base}`, metadata: nested(16) }
          })
          assert.strictEqual(ok.status, 201, ok.text)
          const huge = yield* request("POST", `${base}/wallet/top-ups`.replace(urls.comms, urls["platform-core"]), {
            token: ready.account.token,
            headers: { "content-type": "application/json" },
            body: "{\"amount\":1e400,\"idempotencyKey\":\"k\"}"
          })
          assert.strictEqual(huge.status, 400, huge.text)
          assert.strictEqual(huge.body.error.details[0].path, "amount")
        }
      }))

    it.effect("multipart without a boundary, or cut short, is a 400 at once", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const ready = yield* callReady(urls.gateway, "PROVIDER_A")
        const list = (yield* post(`${urls.gateway}/contact-lists`, { token: ready.key, json: { name: "L" } })).body
        // the body is read (and refused) before the handler would look the knowledge base up
        const kb = { id: "00000000-0000-7000-8000-000000000000" }
        const uploads = [
          `${urls.campaign}/contact-lists/${list.id}/upload`,
          `${urls.comms}/knowledge-bases/${kb.id}/documents/upload`
        ]
        for (const url of uploads) {
          for (const target of [url, url.replace(/http:\/\/[^/]+\/api\/v1/, urls.gateway)]) {
            const before = yield* tableCounts
            const noBoundary = yield* request("POST", target, {
              token: ready.key,
              headers: { "content-type": "multipart/form-data" },
              body: "--x\r\n"
            })
            assert.strictEqual(noBoundary.status, 400, noBoundary.text)
            assert.strictEqual(noBoundary.body.error.code, "INVALID_MULTIPART")
            const notMultipart = yield* request("POST", target, {
              token: ready.key,
              headers: { "content-type": "text/csv" },
              body: "phone\n+14155550100\n"
            })
            assert.strictEqual(notMultipart.status, 415, notMultipart.text)
            // 12 bytes and no delimiter at all; a part with no closing boundary; a part whose headers
            // never end before the next boundary (was a 500: the platform read the missing headers)
            for (
              const body of [
                "hello world!",
                "--b\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nphone\n",
                "--b\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n--b--\r\n"
              ]
            ) {
              const cut = yield* rawRequest(target, [
                requestHead("POST", target, {
                  authorization: `Bearer ${ready.key}`,
                  "content-type": "multipart/form-data; boundary=b",
                  "content-length": String(Buffer.byteLength(body))
                }) + body
              ], { stopAfterMs: 20_000 })
              assert.strictEqual(cut.status, 400, `${target} ${JSON.stringify(body)}: ${cut.head} ${cut.body}`)
              assert.include(cut.body, "INVALID_MULTIPART", `${target} ${JSON.stringify(body)}`)
            }
            assert.deepStrictEqual(yield* tableCounts, before)
          }
        }
      }))

    it.effect(
      "a multipart file name* that is not percent-encoded UTF-8, or decodes to a NUL, is a 400 (was an uncaught " +
        "exception, and a 500)",
      () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const ready = yield* callReady(urls.gateway, "PROVIDER_A")
          const list = (yield* post(`${urls.gateway}/contact-lists`, { token: ready.key, json: { name: "L" } })).body
          const uploads = [
            `${urls.campaign}/contact-lists/${list.id}/upload`,
            `${urls.comms}/knowledge-bases/00000000-0000-7000-8000-000000000000/documents/upload`
          ]
          for (const url of uploads) {
            for (const target of [url, url.replace(/http:\/\/[^/]+\/api\/v1/, urls.gateway)]) {
              for (const name of ["a%ZZb.csv", "a%00b.csv", "a%ED%A0%80b.csv"]) {
                const before = yield* tableCounts
                const reply = yield* request("POST", target, {
                  token: ready.key,
                  headers: { "content-type": "multipart/form-data; boundary=b" },
                  body: `--b\r\ncontent-disposition: form-data; name="file"; ` +
                    `filename*=UTF-8''${name}\r\n\r\nphone\n+14155550100\n\r\n--b--\r\n`
                })
                assert.strictEqual(reply.status, 400, `${target} ${name}: ${reply.text}`)
                assert.strictEqual(reply.body.error.code, "INVALID_MULTIPART", reply.text)
                assert.deepStrictEqual(yield* tableCounts, before)
              }
            }
          }
        })
    )

    it.effect(
      "a form body that passes the rules reaches its handler (the rules read it once, the handler's read is answered " +
        "from it)",
      () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          for (const base of [urls.gateway, urls.comms]) {
            // no auth token is configured here, so the signature cannot match: 403, at once rather than never
            const reply = yield* request(
              "POST",
              `${base}/telephony/twilio/status/00000000-0000-7000-8000-000000000000`,
              {
                headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "forged" },
                body: "CallSid=CA1&CallStatus=ringing"
              }
            )
            assert.strictEqual(reply.status, 403, `${base}: ${reply.text}`)
            assert.strictEqual(reply.body.error.code, "INVALID_SIGNATURE")
          }
        })
    )

    it.effect(
      "timestamps outside years 1 to 9999 in UTC are a 400 naming the field (PostgreSQL cannot read them back: was a " +
        "500)",
      () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const ready = yield* callReady(urls.gateway, "PROVIDER_A")
          const refused: ReadonlyArray<readonly [string, string, string]> = [
            [urls["platform-core"], "/billing/usage?from=0000-01-01T00%3A00%3A00.000Z", "from"],
            [urls["platform-core"], "/analytics/calls?to=9999-12-31T23%3A59%3A59.999-14%3A00", "to"],
            [urls.comms, "/call-logs?from=0001-01-01T00%3A00%3A00%2B14%3A00", "from"]
          ]
          for (const [direct, path, field] of refused) {
            for (const base of [urls.gateway, direct]) {
              const reply = yield* get(`${base}${path}`, { token: ready.key })
              assert.strictEqual(reply.status, 400, `${path}: ${reply.text}`)
              assert.strictEqual(reply.body.error.details[0].path, field, reply.text)
            }
          }
          const before = yield* tableCounts
          const key = yield* post(`${urls.gateway}/api-keys`, {
            token: ready.account.token,
            json: { name: "k", expiresAt: "9999-12-31T23:59:59.999-14:00" }
          })
          assert.strictEqual(key.status, 400, key.text)
          assert.strictEqual(key.body.error.details[0].path, "expiresAt")
          assert.deepStrictEqual(yield* tableCounts, before)
          // the ends themselves are fine
          assert.strictEqual(
            (yield* get(`${urls.gateway}/call-logs?from=0001-01-01T00%3A00%3A00Z&to=9999-12-31T23%3A59%3A59.999Z`, {
              token: ready.key
            })).status,
            200
          )
        })
    )

    it.effect("the signup of a tenant whose company name is fine still works next to all of this", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const account = yield* signup(gateway, { companyName: "Ünïcödé 📞 GmbH" })
        assert.isString(account.tenantId)
      }))
  })
})

const serviceOf = (urls: TestPlatform.PlatformUrls, path: string): string =>
  /^\/(agents|channels|knowledge-bases|calls|call-logs|voice-numbers)/.test(path)
    ? urls.comms
    : /^\/(contact-lists|campaigns|dnc|chatapp|sms-agent)/.test(path)
    ? urls.campaign
    : urls["platform-core"]
