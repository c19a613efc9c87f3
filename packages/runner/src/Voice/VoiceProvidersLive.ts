/**
 * The speech and language providers from the platform's configuration: each network provider is
 * present when its credentials (or its self-hosted address) are configured; the built-in ones always
 * are (the `offline` language model over the agent's knowledge bases, the `flite` voice). The
 * platform's defaults for agents that choose nothing follow from what is configured (see
 * `catalogOf`).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type {
  LanguageModelProviders,
  SpeechToTextProviders,
  TextToSpeechProviders
} from "@voiceagent/domain/AgentVoice"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AgentBrain } from "../Brain/AgentBrain.js"
import * as DeepgramStt from "./DeepgramStt.js"
import * as ElevenLabsTts from "./ElevenLabsTts.js"
import * as FliteTts from "./FliteTts.js"
import type { LanguageModelProvider } from "./LanguageModel.js"
import * as OfflineLanguageModel from "./OfflineLanguageModel.js"
import * as OpenAiChat from "./OpenAiChat.js"
import * as OpenAiSpeech from "./OpenAiSpeech.js"
import * as OpenAiTranscription from "./OpenAiTranscription.js"
import type { SpeechToTextProvider } from "./SpeechToText.js"
import type { TextToSpeechProvider } from "./TextToSpeech.js"
import { embeddedCatalog, type VoiceCatalogShape } from "./VoiceCatalog.js"
import { VoiceProviders } from "./VoiceProviders.js"

export interface VoiceOptions {
  readonly deepgram?: DeepgramStt.DeepgramSttOptions | undefined
  readonly openAiTranscription?: OpenAiTranscription.OpenAiTranscriptionOptions | undefined
  readonly openAiChat?: OpenAiChat.OpenAiChatOptions | undefined
  readonly flite?: FliteTts.FliteOptions | undefined
  /** With the voice agents that name none speak with. */
  readonly elevenLabs?: (ElevenLabsTts.ElevenLabsOptions & { readonly voice: string }) | undefined
  readonly openAiSpeech?: OpenAiSpeech.OpenAiSpeechOptions | undefined
  /** The providers of agents that choose none; unset: the first configured of each kind (see `catalogOf`). */
  readonly defaults?: {
    readonly speechToText?: (typeof SpeechToTextProviders)[number] | undefined
    readonly languageModel?: (typeof LanguageModelProviders)[number] | undefined
    readonly textToSpeech?: (typeof TextToSpeechProviders)[number] | undefined
  } | undefined
  /** The maximum call length of agents that set none (s). */
  readonly maxCallSeconds?: number | undefined
}

/** What is configured, and the defaults: an agent's effective voice is read against this. */
export const catalogOf = (options: VoiceOptions = {}): VoiceCatalogShape => {
  const speechToText = [
    ...(options.deepgram === undefined ? [] : ["deepgram" as const]),
    ...(options.openAiTranscription === undefined ? [] : ["openai" as const])
  ]
  const languageModel = [...(options.openAiChat === undefined ? [] : ["openai" as const]), "offline" as const]
  const textToSpeech = [
    ...(options.elevenLabs === undefined ? [] : ["elevenlabs" as const]),
    ...(options.openAiSpeech === undefined ? [] : ["openai" as const]),
    "flite" as const
  ]
  return {
    defaults: {
      speechToText: options.defaults?.speechToText ?? speechToText[0] ?? "none",
      languageModel: options.defaults?.languageModel ?? languageModel[0]!,
      textToSpeech: options.defaults?.textToSpeech ?? textToSpeech[0]!,
      maxCallSeconds: options.maxCallSeconds ?? embeddedCatalog.defaults.maxCallSeconds
    },
    available: { speechToText, languageModel, textToSpeech }
  }
}

export const VoiceProvidersLive = (
  options: VoiceOptions = {}
): Layer.Layer<VoiceProviders, never, AgentBrain | HttpClient.HttpClient> =>
  Layer.scoped(
    VoiceProviders,
    Effect.gen(function*() {
      const speechToText = new Map<string, SpeechToTextProvider>()
      if (options.deepgram !== undefined) speechToText.set("deepgram", yield* DeepgramStt.make(options.deepgram))
      if (options.openAiTranscription !== undefined) {
        speechToText.set("openai", yield* OpenAiTranscription.make(options.openAiTranscription))
      }
      const languageModel = new Map<string, LanguageModelProvider>([["offline", yield* OfflineLanguageModel.make]])
      if (options.openAiChat !== undefined) languageModel.set("openai", yield* OpenAiChat.make(options.openAiChat))
      const textToSpeech = new Map<string, TextToSpeechProvider>([["flite", yield* FliteTts.make(options.flite)]])
      const defaultVoices = new Map([["flite", FliteTts.FLITE_DEFAULT_VOICE]])
      if (options.elevenLabs !== undefined) {
        textToSpeech.set("elevenlabs", yield* ElevenLabsTts.make(options.elevenLabs))
        defaultVoices.set("elevenlabs", options.elevenLabs.voice)
      }
      if (options.openAiSpeech !== undefined) {
        textToSpeech.set("openai", yield* OpenAiSpeech.make(options.openAiSpeech))
        defaultVoices.set("openai", options.openAiSpeech.voice ?? OpenAiSpeech.OPENAI_SPEECH_DEFAULT_VOICE)
      }
      const catalog = catalogOf(options)
      yield* Effect.logInfo(
        `voice: speech-to-text ${[...speechToText.keys()].join(", ") || "none"}; language models ${
          [...languageModel.keys()].join(", ")
        }; ` +
          `text-to-speech ${[...textToSpeech.keys()].join(", ")}; agents' defaults ${catalog.defaults.speechToText}, ` +
          `${catalog.defaults.languageModel}, ${catalog.defaults.textToSpeech}`
      )
      if (speechToText.size === 0) {
        yield* Effect.logWarning(
          "voice: no speech-to-text provider is configured: agents on a real carrier can speak but not hear callers " +
            "(set DEEPGRAM_API_KEY, or TRANSCRIPTION_URL for an OpenAI-compatible transcription server)"
        )
      }
      return {
        speechToText,
        languageModel,
        textToSpeech,
        defaultVoices
      }
    })
  )
