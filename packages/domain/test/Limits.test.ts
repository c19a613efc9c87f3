import { assert, describe, it } from "@effect/vitest"
import { AgentVoice } from "@voiceagent/domain/AgentVoice"
import { CreateCampaignRequest } from "@voiceagent/domain/Campaigns"
import { CAMPAIGN_LIMITS, VOICE_LIMITS } from "@voiceagent/domain/Limits"
import { Either, Schema } from "effect"
import * as fs from "node:fs"

describe("Limits", () => {
  it("imports nothing (the web dashboard bundles it without Effect)", () => {
    const source = fs.readFileSync(new URL("../src/Limits.ts", import.meta.url), "utf8")
    assert.notMatch(source, /^\s*(import|export .* from)\b/m)
  })

  it("are the bounds the schemas check", () => {
    const campaign = {
      agentId: "00000000-0000-4000-8000-000000000001",
      voiceNumberId: "00000000-0000-4000-8000-000000000002",
      contactListId: "00000000-0000-4000-8000-000000000003"
    }
    const create = Schema.decodeUnknownEither(CreateCampaignRequest)
    assert.isTrue(Either.isRight(create({ ...campaign, name: "x".repeat(CAMPAIGN_LIMITS.name.max) })))
    assert.isTrue(Either.isLeft(create({ ...campaign, name: "x".repeat(CAMPAIGN_LIMITS.name.max + 1) })))
    const voice = Schema.decodeUnknownEither(AgentVoice)
    const [, most] = VOICE_LIMITS.keypad.maxDigits
    assert.isTrue(Either.isRight(voice({ keypad: { maxDigits: most } })))
    assert.isTrue(Either.isLeft(voice({ keypad: { maxDigits: most + 1 } })))
  })
})
