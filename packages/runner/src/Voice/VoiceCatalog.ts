/**
 * What this platform can do for an agent's voice: the providers configured (their credentials are
 * platform configuration, read at start) and the defaults for agents that choose none. Agents are
 * read through it (`Agent.effectiveVoice`), so an agent's answer says what it will really use and
 * what it cannot do here, such as hear callers with no speech-to-text provider.
 *
 * A reference with the embedded default: nothing configured but the built-in parts (the offline
 * responder, the Flite voice), no speech-to-text.
 */
import {
  type AgentVoice,
  type LanguageModelProviders,
  type PlatformVoiceDefaults,
  type ResolvedVoice,
  resolveVoice,
  type SpeechToTextProviders,
  type TextToSpeechProviders
} from "@voiceagent/domain/AgentVoice"
import * as Context from "effect/Context"

export interface VoiceCatalogShape {
  readonly defaults: PlatformVoiceDefaults
  readonly available: {
    readonly speechToText: ReadonlyArray<(typeof SpeechToTextProviders)[number]>
    readonly languageModel: ReadonlyArray<(typeof LanguageModelProviders)[number]>
    readonly textToSpeech: ReadonlyArray<(typeof TextToSpeechProviders)[number]>
  }
}

export const embeddedCatalog: VoiceCatalogShape = {
  defaults: { speechToText: "none", languageModel: "offline", textToSpeech: "flite", maxCallSeconds: 3_600 },
  available: { speechToText: [], languageModel: ["offline"], textToSpeech: ["flite"] }
}

export class VoiceCatalog extends Context.Reference<VoiceCatalog>()("Voice/VoiceCatalog", {
  defaultValue: (): VoiceCatalogShape => embeddedCatalog
}) {}

/** An agent's choices with this platform's defaults and notices. */
export const effectiveVoice = (catalog: VoiceCatalogShape, voice: AgentVoice): ResolvedVoice =>
  resolveVoice(voice, catalog.defaults, catalog.available)
