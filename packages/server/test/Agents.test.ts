import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { createKey, del, get, patch, post, signup } from "./Http.js"

/** A new tenant with an API key, made through the gateway. */
const tenantKey = () =>
  Effect.gen(function*() {
    const { gateway } = yield* TestPlatform.TestPlatformUrls
    const account = yield* signup(gateway)
    const { key } = yield* createKey(gateway, account.token)
    return { ...account, key }
  })

const firstPersona = (base: string, key: string) =>
  Effect.map(get(`${base}/prompts/personas`, { token: key }), (r) => r.body.items[0])

describe("agents, personas and voice numbers", () => {
  layer(TestPlatform.layer({ publicUrl: "https://voice.example.com" }), {
    timeout: 120_000,
    excludeTestServices: true
  })(
    (it) => {
      it.effect("lists the seeded personas, paginated", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const all = yield* get(`${comms}/prompts/personas`, { token: key })
          assert.strictEqual(all.status, 200)
          assert.isAtLeast(all.body.total, 5)
          const persona = all.body.items[0]
          for (const field of ["id", "name", "description", "defaultPrompt", "defaultGreeting"]) {
            assert.isString(persona[field])
          }
          const page = yield* get(`${comms}/prompts/personas?pageSize=2&page=2`, { token: key })
          assert.strictEqual(page.body.items.length, 2)
          assert.strictEqual(page.body.totalPages, Math.ceil(all.body.total / 2))
          assert.strictEqual((yield* get(`${comms}/prompts/personas?pageSize=101`, { token: key })).status, 400)
        }))

      it.effect("creates an agent from a persona on comms and on platform core", () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const persona = yield* firstPersona(urls.comms, key)
          for (const base of [urls.comms, urls["platform-core"], urls.gateway]) {
            const created = yield* post(`${base}/agents`, {
              token: key,
              json: { name: "  Front desk  ", agent_persona_id: persona.id }
            })
            assert.strictEqual(created.status, 201, created.text)
            const agent = created.body
            assert.strictEqual(agent.name, "Front desk")
            assert.isTrue(agent.is_active)
            assert.isString(agent.agent_id)
            assert.strictEqual(agent.brain.id, agent.agent_id)
            assert.notStrictEqual(agent.agent_id, agent.id)
            assert.strictEqual(agent.agent_prompt, persona.defaultPrompt)
            assert.strictEqual(agent.greetMessage, persona.defaultGreeting)
            assert.deepStrictEqual([agent.channel, agent.connectionId, agent.settings, agent.metadata], [
              null,
              null,
              {},
              {}
            ])
            assert.deepStrictEqual(agent.knowledgeBaseIds, [])
            const read = yield* get(`${urls.comms}/agents/${agent.id}`, { token: key })
            assert.deepStrictEqual(read.body, agent)
          }
          const list = yield* get(`${urls.comms}/agents`, { token: key })
          assert.strictEqual(list.body.total, 3)
        }))

      it.effect("refuses unknown personas and bad names, writing nothing", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const persona = yield* firstPersona(comms, key)
          const unknown = yield* post(`${comms}/agents`, {
            token: key,
            json: { name: "x", agent_persona_id: "00000000-0000-4000-8000-000000000000" }
          })
          assert.deepStrictEqual([unknown.status, unknown.body.error.code], [400, "PERSONA_NOT_FOUND"])
          for (const name of ["", "   ", "x".repeat(121), 42]) {
            const bad = yield* post(`${comms}/agents`, { token: key, json: { name, agent_persona_id: persona.id } })
            assert.deepStrictEqual([bad.status, bad.body.error.code], [400, "VALIDATION_FAILED"], String(name))
          }
          assert.strictEqual(
            (yield* post(`${comms}/agents`, {
              token: key,
              json: { name: "x".repeat(120), agent_persona_id: persona.id }
            })).status,
            201
          )
          assert.strictEqual((yield* get(`${comms}/agents`, { token: key })).body.total, 1)
        }))

      it.effect("patches only the fields supplied, merging metadata and settings", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const persona = yield* firstPersona(comms, key)
          const agent =
            (yield* post(`${comms}/agents`, { token: key, json: { name: "A", agent_persona_id: persona.id } })).body

          const first = yield* patch(`${comms}/agents/${agent.id}`, {
            token: key,
            json: { greetMessage: "Hi there", metadata: { fallback_message: "Sorry?", tone: "warm" } }
          })
          assert.strictEqual(first.status, 200)
          assert.strictEqual(first.body.greetMessage, "Hi there")
          assert.strictEqual(first.body.name, "A")
          assert.strictEqual(first.body.agent_prompt, persona.defaultPrompt)
          assert.deepStrictEqual(first.body.metadata, { fallback_message: "Sorry?", tone: "warm" })

          const second = yield* patch(`${comms}/agents/${agent.id}`, {
            token: key,
            json: {
              channel: "VOICE",
              settings: { phone_provider: "PROVIDER_B", phone_number: "+14155552671" },
              metadata: { tone: null }
            }
          })
          assert.strictEqual(second.status, 200, second.text)
          assert.deepStrictEqual(second.body.metadata, { fallback_message: "Sorry?" })
          assert.deepStrictEqual(second.body.settings, { phone_provider: "PROVIDER_B", phone_number: "+14155552671" })
          assert.strictEqual(second.body.greetMessage, "Hi there")
          assert.isAbove(Date.parse(second.body.updatedAt), Date.parse(agent.updatedAt) - 1)

          const off = yield* patch(`${comms}/agents/${agent.id}`, { token: key, json: { is_active: false } })
          assert.isFalse(off.body.is_active)
          assert.strictEqual(off.body.channel, "VOICE")
        }))

      it.effect("validates settings by shape", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const persona = yield* firstPersona(comms, key)
          const agent =
            (yield* post(`${comms}/agents`, { token: key, json: { name: "A", agent_persona_id: persona.id } })).body
          const url = `${comms}/agents/${agent.id}`
          const cases: Array<[unknown, number, string]> = [
            [
              { settings: { phone_provider: "PROVIDER_B", phone_number: "+14155552671" } },
              400,
              "INVALID_AGENT_SETTINGS"
            ],
            [{ channel: "VOICE", settings: { phone_provider: "PROVIDER_B" } }, 400, "INVALID_AGENT_SETTINGS"],
            [
              { channel: "VOICE", settings: { phone_provider: "PROVIDER_Z", phone_number: "+14155552671" } },
              400,
              "VALIDATION_FAILED"
            ],
            [
              { channel: "VOICE", settings: { phone_provider: "PROVIDER_A", phone_number: "4155552671" } },
              400,
              "VALIDATION_FAILED"
            ],
            [{ channel: "SMS" }, 400, "VALIDATION_FAILED"],
            [{ settings: { phoneNumberID: "x" } }, 400, "VALIDATION_FAILED"],
            [{ metadata: [1, 2] }, 400, "VALIDATION_FAILED"],
            [{ is_active: "no" }, 400, "VALIDATION_FAILED"]
          ]
          for (const [body, status, code] of cases) {
            const reply = yield* patch(url, { token: key, json: body })
            assert.deepStrictEqual([reply.status, reply.body.error?.code], [status, code], JSON.stringify(body))
          }
          const unchanged = yield* get(url, { token: key })
          assert.deepStrictEqual(unchanged.body, agent)
        }))

      it.effect(
        "voice choices: merged key by key, validated naming the field with nothing written, read back with what is " +
          "in force",
        () =>
          Effect.gen(function*() {
            const { comms } = yield* TestPlatform.TestPlatformUrls
            const { key } = yield* tenantKey()
            const persona = yield* firstPersona(comms, key)
            const agent =
              (yield* post(`${comms}/agents`, { token: key, json: { name: "A", agent_persona_id: persona.id } })).body
            const url = `${comms}/agents/${agent.id}`
            // nothing chosen: the platform's defaults, and what they cannot do (no speech-to-text here)
            assert.deepStrictEqual(agent.voice, {})
            assert.strictEqual(agent.effectiveVoice.speechToText.provider, "none")
            assert.strictEqual(agent.effectiveVoice.languageModel.provider, "offline")
            assert.strictEqual(agent.effectiveVoice.textToSpeech.provider, "flite")
            assert.deepStrictEqual(agent.effectiveVoice.endpointing, { minDelayMs: 300, maxDelayMs: 2500 })
            assert.isTrue(agent.effectiveVoice.notices.some((n: string) => n.includes("not hear")))

            const first = yield* patch(url, {
              token: key,
              json: {
                voice: {
                  language: "en-GB",
                  languageModel: { provider: "openai", model: "gpt-4o-mini", temperature: 0.3 },
                  textToSpeech: { voice: "kal" },
                  endpointing: { minDelayMs: 400 },
                  interruption: { minSpeechMs: 300, backchannels: ["uh-huh", "right"] },
                  idle: { reminderAfterSeconds: 10, reminders: 2 },
                  maxCallSeconds: 600,
                  tools: { endCall: false }
                }
              }
            })
            assert.strictEqual(first.status, 200, first.text)
            assert.deepStrictEqual(first.body.voice.languageModel, {
              provider: "openai",
              model: "gpt-4o-mini",
              temperature: 0.3
            })
            const effective = first.body.effectiveVoice
            assert.deepStrictEqual(
              [
                effective.language,
                effective.endpointing,
                effective.interruption.minSpeechMs,
                effective.interruption.backchannels
              ],
              ["en-GB", { minDelayMs: 400, maxDelayMs: 2500 }, 300, ["uh-huh", "right"]]
            )
            assert.deepStrictEqual([
              effective.idle.reminderAfterSeconds,
              effective.idle.reminders,
              effective.maxCallSeconds
            ], [10, 2, 600])
            assert.deepStrictEqual(effective.tools, { endCall: false, knowledgeLookup: true })
            // chosen but not configured on this platform: the offline responder answers, and the agent says so
            assert.strictEqual(effective.languageModel.provider, "offline")
            assert.isTrue(effective.notices.some((n: string) => n.includes("openai is not configured")))
            assert.strictEqual(effective.textToSpeech.voice, "kal")

            // merged: null removes a choice (and a group left empty), the rest stays
            const second = yield* patch(url, {
              token: key,
              json: {
                voice: {
                  languageModel: null,
                  idle: { reminders: null, reminderAfterSeconds: null },
                  endpointing: { maxDelayMs: 3000 }
                }
              }
            })
            assert.strictEqual(second.status, 200, second.text)
            assert.isUndefined(second.body.voice.languageModel)
            assert.isUndefined(second.body.voice.idle)
            assert.deepStrictEqual(second.body.voice.endpointing, { minDelayMs: 400, maxDelayMs: 3000 })
            assert.strictEqual(second.body.voice.maxCallSeconds, 600)
            assert.deepStrictEqual((yield* get(url, { token: key })).body, second.body)

            const cases: Array<[unknown, string]> = [
              [{ voice: { speechToText: { provider: "whisperx" } } }, "voice.speechToText.provider"],
              [{ voice: { endpointing: { minDelayMs: 50 } } }, "voice.endpointing.minDelayMs"],
              [{ voice: { interruption: { minSpeechMs: 200.5 } } }, "voice.interruption.minSpeechMs"],
              [{ voice: { idle: { reminderText: "" } } }, "voice.idle.reminderText"],
              [{ voice: { language: "english" } }, "voice.language"],
              [{ voice: { maxCallSeconds: 5 } }, "voice.maxCallSeconds"],
              [{ voice: { languageModel: { temperature: 3 } } }, "voice.languageModel.temperature"],
              [{ voice: { tools: { transfer: true } } }, "voice.tools"],
              [{ voice: { speed: 2 } }, "voice"],
              [{ voice: { interruption: { backchannels: "uh-huh" } } }, "voice.interruption.backchannels"],
              [{ voice: "fast" }, "voice"]
            ]
            for (const [body, field] of cases) {
              const reply = yield* patch(url, { token: key, json: body })
              assert.deepStrictEqual(
                [reply.status, reply.body.error?.code],
                [400, "VALIDATION_FAILED"],
                JSON.stringify(body)
              )
              assert.isTrue(
                reply.body.error.details.some((d: { path: string }) => d.path.startsWith(field)),
                `${JSON.stringify(body)}: ${JSON.stringify(reply.body.error.details)}`
              )
            }
            assert.deepStrictEqual((yield* get(url, { token: key })).body, second.body, "nothing written")
          })
      )

      it.effect("enabling the chat-app channel needs the webhook token first", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const persona = yield* firstPersona(comms, key)
          const agent =
            (yield* post(`${comms}/agents`, { token: key, json: { name: "A", agent_persona_id: persona.id } })).body
          const enable = { connectionId: "chatapp-integration-1", settings: { phoneNumberId: "1099" } }

          const refused = yield* patch(`${comms}/agents/${agent.id}`, { token: key, json: enable })
          assert.deepStrictEqual([refused.status, refused.body.error.code], [409, "WEBHOOK_TOKEN_REQUIRED"])
          // one half alone is fine
          assert.strictEqual(
            (yield* patch(`${comms}/agents/${agent.id}`, { token: key, json: { connectionId: "c-1" } })).status,
            200
          )

          const token = yield* post(`${comms}/agents/${agent.id}/webhook-token`, { token: key })
          assert.strictEqual(token.status, 200)
          assert.match(token.body.token, /^[A-Za-z0-9_-]{32}$/)
          assert.strictEqual(
            token.body.webhookUrl,
            `https://voice.example.com/api/v1/channels/chatapp/agents/${agent.id}/webhook`
          )
          const again = yield* post(`${comms}/agents/${agent.id}/webhook-token`, { token: key })
          assert.deepStrictEqual(again.body, token.body, "idempotent: the same token on repeat")

          const enabled = yield* patch(`${comms}/agents/${agent.id}`, { token: key, json: enable })
          assert.strictEqual(enabled.status, 200, enabled.text)
          assert.strictEqual(enabled.body.connectionId, "chatapp-integration-1")
          assert.deepStrictEqual(enabled.body.settings, { phoneNumberId: "1099" })
          assert.isTrue(enabled.body.webhookTokenIssued)

          // the webhook the token protects, verified without an API key
          const verifyUrl = (verify: string) =>
            `${comms}/channels/chatapp/agents/${agent.id}/webhook?hub.mode=subscribe&hub.verify_token=${verify}` +
            `&hub.challenge=1158201444`
          const ok = yield* get(verifyUrl(token.body.token))
          assert.deepStrictEqual([ok.status, ok.text], [200, "1158201444"])
          assert.match(ok.headers.get("content-type")!, /^text\/plain/)
          const bad = yield* get(verifyUrl("wrong"))
          assert.deepStrictEqual([bad.status, bad.body.error.code], [403, "WEBHOOK_VERIFICATION_FAILED"])
        }))

      it.effect("another tenant's agent is a 404, never a 403 and never a leak", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const alice = yield* tenantKey()
          const bob = yield* tenantKey()
          const persona = yield* firstPersona(comms, alice.key)
          const agent = (yield* post(`${comms}/agents`, {
            token: alice.key,
            json: { name: "Alice Secret Agent", agent_persona_id: persona.id }
          })).body
          for (
            const reply of [
              yield* get(`${comms}/agents/${agent.id}`, { token: bob.key }),
              yield* patch(`${comms}/agents/${agent.id}`, { token: bob.key, json: { name: "stolen" } }),
              yield* post(`${comms}/agents/${agent.id}/webhook-token`, { token: bob.key })
            ]
          ) {
            assert.deepStrictEqual([reply.status, reply.body.error.code], [404, "AGENT_NOT_FOUND"])
            assert.notInclude(reply.text, agent.name)
          }
          assert.strictEqual((yield* get(`${comms}/agents`, { token: bob.key })).body.total, 0)
          assert.strictEqual(
            (yield* get(`${comms}/agents/${agent.id}`, { token: alice.key })).body.name,
            "Alice Secret Agent"
          )
        }))

      it.effect("an API key can be pinned to one of the tenant's agents, and only those", () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const alice = yield* tenantKey()
          const bob = yield* tenantKey()
          const persona = yield* firstPersona(comms, alice.key)
          const agent = (yield* post(`${comms}/agents`, {
            token: alice.key,
            json: { name: "Pinned", agent_persona_id: persona.id }
          })).body
          const pinned = yield* post(`${gateway}/api-keys`, {
            token: alice.token,
            json: { name: "pinned", agentId: agent.id }
          })
          assert.deepStrictEqual([pinned.status, pinned.body.agentId], [201, agent.id])
          const foreign = yield* post(`${gateway}/api-keys`, {
            token: bob.token,
            json: { name: "foreign", agentId: agent.id }
          })
          assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "AGENT_NOT_FOUND"])
        }))

      it.effect("voice numbers: register, list, read, delete; unique per tenant; E.164 only", () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const alice = yield* tenantKey()
          const bob = yield* tenantKey()
          const created = yield* post(`${comms}/voice-numbers`, {
            token: alice.key,
            json: { phoneNumber: "+14155552671", provider: "PROVIDER_A", label: "Main line" }
          })
          assert.strictEqual(created.status, 201, created.text)
          assert.deepInclude(created.body, { phoneNumber: "+14155552671", provider: "PROVIDER_A", label: "Main line" })

          const duplicate = yield* post(`${comms}/voice-numbers`, {
            token: alice.key,
            json: { phoneNumber: "+14155552671", provider: "PROVIDER_B" }
          })
          assert.deepStrictEqual([duplicate.status, duplicate.body.error.code], [409, "VOICE_NUMBER_EXISTS"])
          const otherTenant = yield* post(`${comms}/voice-numbers`, {
            token: bob.key,
            json: { phoneNumber: "+14155552671", provider: "PROVIDER_B" }
          })
          assert.strictEqual(otherTenant.status, 201, "another tenant may register the same number")

          for (
            const body of [
              { phoneNumber: "4155552671", provider: "PROVIDER_A" },
              { phoneNumber: "+1 415 555 2671", provider: "PROVIDER_A" },
              { phoneNumber: "+10000000000", provider: "PROVIDER_A" },
              { phoneNumber: "+14155552672", provider: "TWILIO" },
              { phoneNumber: "+14155552672" }
            ]
          ) {
            const bad = yield* post(`${comms}/voice-numbers`, { token: alice.key, json: body })
            assert.deepStrictEqual([bad.status, bad.body.error.code], [400, "VALIDATION_FAILED"], JSON.stringify(body))
          }

          const list = yield* get(`${comms}/voice-numbers`, { token: alice.key })
          assert.deepStrictEqual([list.body.total, list.body.items[0].id], [1, created.body.id])
          assert.strictEqual(
            (yield* get(`${comms}/voice-numbers/${created.body.id}`, { token: alice.key })).status,
            200
          )
          const foreign = yield* get(`${comms}/voice-numbers/${created.body.id}`, { token: bob.key })
          assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "VOICE_NUMBER_NOT_FOUND"])
          assert.strictEqual((yield* del(`${comms}/voice-numbers/${created.body.id}`, { token: bob.key })).status, 404)
          assert.strictEqual(
            (yield* del(`${comms}/voice-numbers/${created.body.id}`, { token: alice.key })).status,
            204
          )
          assert.strictEqual(
            (yield* get(`${comms}/voice-numbers/${created.body.id}`, { token: alice.key })).status,
            404
          )
        }))
    }
  )
})
