/**
 * A call's conversation, hosted by the process that runs the call's `LiveCall` entity. The entity
 * prepares it when it dials (the agent's voice resolved, the speech session opened, the greeting
 * synthesised while the phone rings) and registers for the call's media stream (`LocalMedia`); when
 * the stream arrives (Twilio's WebSocket on the media server, or the simulated carrier's line in
 * process) the conversation engine runs on it, and its reports go to the entity: transcript lines,
 * latencies, the agent hanging up, the stream stopping. A stream that arrives again (the carrier
 * reconnected, or the call moved to this runner) replaces the one before and resumes the
 * conversation from the lines already said.
 */
import type { Agent } from "@voiceagent/domain/Agents"
import type { ResolvedVoice } from "@voiceagent/domain/AgentVoice"
import type { MediaRoute, SessionId } from "@voiceagent/domain/Calls"
import {
  type ConversationSettings,
  defaultInterruption,
  defaultSettings,
  type Message
} from "@voiceagent/domain/Conversation"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberHandle from "effect/FiberHandle"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { CallLine } from "../CallRecords/CallSessionsRepo.js"
import { Retrieval } from "../Knowledge/Retrieval.js"
import { trackedStream } from "../Observability/OffClockWork.js"
import { conversationNotices, conversations } from "../Observability/VoiceMetrics.js"
import { type CallRecording, Recordings } from "../Recordings/Recordings.js"
import { concat } from "../Voice/Audio.js"
import { makeCallTools } from "../Voice/CallTools.js"
import { type EngineReport, type Prepared, runConversation, takeSentences, toolSpecs } from "../Voice/Engine.js"
import type { LanguageModelProvider } from "../Voice/LanguageModel.js"
import { LocalMedia, type MediaSession } from "../Voice/Media.js"
import { MediaServer } from "../Voice/MediaServer.js"
import type { SttStream } from "../Voice/SpeechToText.js"
import { SpeechPart, type TextToSpeechProvider, type TtsSession } from "../Voice/TextToSpeech.js"
import { Vad } from "../Voice/Vad.js"
import { VoiceProviders } from "../Voice/VoiceProviders.js"

/** What the agent says when a conversation resumes on a new stream (the line dropped, the call moved). */
export const RESUME_LINE = "Sorry, the line dropped for a moment. I'm back."

/** How a phone conversation differs from a chat: what every agent's instructions end with. */
export const PHONE_STYLE =
  "You are speaking with the caller on a phone call. Answer in one to three short spoken sentences, " +
  "without lists, markdown, emoji or URLs. Spell out numbers the way they are said. If you need a fact you do not " +
  "know, use lookup_knowledge when you have it; never invent one. When the caller wants to end the call or the " +
  "conversation is over, say goodbye and use end_call."

export interface ConversationRequest {
  readonly sessionId: SessionId
  readonly tenantId: TenantId
  readonly agent: Agent
  /**
   * The lines said on this call so far, read when a stream attaches: a stream that comes after some
   * (the line dropped, the call moved) resumes the conversation with them as the model's context,
   * and no greeting again.
   */
  readonly history: Effect.Effect<ReadonlyArray<CallLine>>
  /** Where the engine's reports go (the call's entity). */
  readonly report: (report: EngineReport) => Effect.Effect<void>
  /** Sees each stream before the conversation takes it (voicemail detection listens to the callee's audio). */
  readonly tap?: ((media: MediaSession) => MediaSession) | undefined
  /** Record the call, at this rate (`Recordings.recordingOf`); absent: not recorded. */
  readonly recording?: { readonly sampleRate: number } | undefined
}

/** Something that takes a call's stream in place of the conversation (leaving a voicemail message). */
export type StreamTakeover = (media: MediaSession, speech: TtsSession) => Effect.Effect<void, never, Scope.Scope>

export interface ConversationHandle {
  /** Where a carrier that streams over the network connects for this call, and its one-use credential. */
  readonly streamRoute: Effect.Effect<Option.Option<MediaRoute>>
  /** Whether a media stream is attached now. */
  readonly attached: () => boolean
  /**
   * Stops the conversation and gives its stream (now, or when one comes) to `run`, with the agent's
   * voice; the stream stays open for it.
   */
  readonly takeOver: (run: StreamTakeover) => Effect.Effect<void>
}

/** The machine's settings from an agent's resolved voice. */
export const settingsOf = (voice: ResolvedVoice, greeting: string): ConversationSettings => ({
  ...defaultSettings(greeting),
  endpointing: voice.endpointing,
  interruption: {
    ...defaultInterruption,
    enabled: voice.interruption.enabled,
    minSpeechMs: voice.interruption.minSpeechMs,
    minWords: voice.interruption.minWords,
    backchannels: voice.interruption.backchannels
  },
  idle: {
    reminderAfterMs: voice.idle.reminderAfterSeconds * 1_000,
    reminders: voice.idle.reminders,
    reminderText: voice.idle.reminderText,
    goodbyeText: voice.idle.goodbyeText
  }
})

/** A transcript as the model's context. */
export const messagesOf = (lines: ReadonlyArray<CallLine>): ReadonlyArray<Message> =>
  lines.map((line) =>
    line.speaker === "agent" ? { role: "assistant", content: line.text } : { role: "user", content: line.text }
  )

/** The most sentences kept in the speech cache of a process. */
const CACHE_ENTRIES = 512
/** Longer pieces are not cached (a one-off answer). */
const CACHE_MAX_CHARS = 240

/**
 * Speech synthesised once per voice and text in this process (greetings, reminders, fillers, the
 * offline responder's answers): a campaign of a thousand calls synthesises its greeting once.
 */
const speechCache = new Map<string, Prepared>()

const remember = (key: string, value: Prepared) => {
  speechCache.delete(key)
  speechCache.set(key, value)
  if (speechCache.size > CACHE_ENTRIES) speechCache.delete(speechCache.keys().next().value!)
}

/** All of a sentence's speech, with its word timings. */
const synthesizeWhole = (tts: TtsSession, text: string) =>
  Effect.map(Stream.runCollect(tts.synthesize(text)), (parts): Prepared => {
    const audio: Array<Int16Array> = []
    let wordEndsMs: ReadonlyArray<number> | undefined
    for (const part of Chunk.toReadonlyArray(parts)) {
      if (part._tag === "Audio") audio.push(part.pcm)
      else wordEndsMs = part.wordEndsMs
    }
    // one part (a sentence from the cache) is kept as it is: every call preparing the same greeting
    // then holds the cache's samples instead of a copy of them (~66 KB a held call)
    return { text, pcm: audio.length === 1 ? audio[0]! : concat(audio), wordEndsMs }
  })

/** `session` with the process's speech cache in front, under `voiceKey`. */
export const cachedSpeech = (session: TtsSession, voiceKey: string): TtsSession => ({
  synthesize: (text) => {
    const key = `${voiceKey}\u0000${text}`
    const hit = speechCache.get(key)
    if (hit !== undefined) {
      remember(key, hit)
      return Stream.make(
        SpeechPart.Audio({ pcm: hit.pcm }),
        ...(hit.wordEndsMs === undefined ? [] : [SpeechPart.Words({ wordEndsMs: hit.wordEndsMs })])
      )
    }
    if (text.length > CACHE_MAX_CHARS) return trackedStream(session.synthesize(text))
    const audio: Array<Int16Array> = []
    let wordEndsMs: ReadonlyArray<number> | undefined
    let whole = false
    return trackedStream(session.synthesize(text)).pipe(
      Stream.tap((part) =>
        Effect.sync(() => {
          if (part._tag === "Audio") audio.push(part.pcm)
          else wordEndsMs = part.wordEndsMs
        })
      ),
      // after the last part (`Stream.onDone` would also run for a consumer that stopped early, and
      // cache part of the sentence)
      Stream.concat(Stream.execute(Effect.sync(() => {
        whole = true
        remember(key, { text, pcm: concat(audio), wordEndsMs })
      }))),
      // a synthesis cut short (the call ended while its greeting was being prepared, as a campaign's
      // unanswered and zero-second calls do) would leave the cache empty for every later call
      Stream.ensuring(Effect.suspend(() => whole ? Effect.void : fillInBackground(session, key, text)))
    )
  }
})

/** Keys being synthesised in the background to fill the cache: one synthesis per key at a time. */
const filling = new Set<string>()

/**
 * Synthesises `text` whole, apart from any call, and caches it: once per key at a time, given up
 * after a minute or on any failure (the session may have closed with its call), counted as
 * off-clock work (a test's clock waits for it).
 */
const fillInBackground = (session: TtsSession, key: string, text: string): Effect.Effect<void> => {
  if (speechCache.has(key) || filling.has(key)) return Effect.void
  filling.add(key)
  return synthesizeWhole({ synthesize: (t) => trackedStream(session.synthesize(t)) }, text).pipe(
    Effect.timeout("1 minute"),
    Effect.tap((prepared) => Effect.sync(() => remember(key, prepared))),
    Effect.catchAllCause(() => Effect.void),
    Effect.ensuring(Effect.sync(() => filling.delete(key))),
    Effect.forkDaemon,
    Effect.asVoid
  )
}

export class Conversations extends Effect.Service<Conversations>()("Voice/Conversations", {
  effect: Effect.gen(function*() {
    const providers = yield* VoiceProviders
    const vad = yield* Vad
    const local = yield* LocalMedia
    const retrieval = yield* Effect.serviceOption(Retrieval)
    const mediaServer = yield* Effect.serviceOption(MediaServer)
    const recordings = yield* Effect.serviceOption(Recordings)

    /** The agent's speech session, or the built-in voice when its provider cannot open one. */
    const openSpeech = (voice: ResolvedVoice, notice: (message: string) => Effect.Effect<void>) =>
      Effect.gen(function*() {
        const flite = providers.textToSpeech.get("flite")
        const chosen: TextToSpeechProvider | undefined = providers.textToSpeech.get(voice.textToSpeech.provider) ??
          flite
        if (chosen === undefined) {
          return yield* Effect.dieMessage("no text-to-speech provider: flite is always configured")
        }
        const open = (provider: TextToSpeechProvider, own: boolean) => {
          const name = (own ? voice.textToSpeech.voice : null) ?? providers.defaultVoices.get(provider.name) ??
            "default"
          const model = own ? voice.textToSpeech.model ?? undefined : undefined
          return Effect.map(
            provider.open({ voice: name, model, language: voice.language }),
            (session) => cachedSpeech(session, `${provider.name}|${name}|${model ?? ""}|${voice.language}`)
          )
        }
        return yield* open(chosen, true).pipe(
          Effect.catchAll((error) =>
            flite === undefined || chosen === flite
              ? Effect.dieMessage(`the built-in voice could not start: ${error.reason}`)
              : Effect.zipRight(
                notice(
                  `text-to-speech ${chosen.name} failed to open (${error.reason}): the built-in voice speaks instead`
                ),
                Effect.orDieWith(
                  open(flite, false),
                  (e) => new Error(`the built-in voice could not start: ${e.reason}`)
                )
              )
          )
        )
      })

    const lookup = (tenantId: TenantId, kbIds: ReadonlyArray<string>, args: string) =>
      Effect.gen(function*() {
        if (Option.isNone(retrieval) || kbIds.length === 0) return "No knowledge base is available."
        let query = ""
        try {
          const parsed = JSON.parse(args) as { query?: unknown }
          if (typeof parsed.query === "string") query = parsed.query.trim()
        } catch {
          // reported below
        }
        if (query === "") return "The lookup needs a query."
        const chunks = yield* retrieval.value.searchAll(tenantId, kbIds, query.slice(0, 500), 3)
        if (chunks.length === 0) return "Nothing relevant was found in the knowledge bases."
        return chunks.map((c) => c.text).join("\n---\n").slice(0, 2_000)
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning("knowledge lookup failed", cause), "The lookup failed.")
        )
      )

    const prepare: (request: ConversationRequest) => Effect.Effect<ConversationHandle, never, Scope.Scope> = Effect.fn(
      "Conversations.prepare"
    )(
      function*(request) {
        const { agent, sessionId, tenantId } = request
        const voice = agent.effectiveVoice
        const notice = (message: string) =>
          Effect.zipRight(
            Metric.increment(Metric.tagged(conversationNotices, "kind", "provider")),
            request.report({ _tag: "Notice", message })
          )
        const tts = yield* openSpeech(voice, notice)
        // the greeting is synthesised while the phone rings: its first audio follows the answer at once
        const prepared = yield* Deferred.make<ReadonlyArray<Prepared>>()
        yield* Effect.forEach(
          takeSentences(agent.greetMessage, true).ready,
          (sentence) => Effect.option(synthesizeWhole(tts, sentence))
        ).pipe(
          Effect.flatMap((done) => Deferred.succeed(prepared, done.flatMap(Option.toArray))),
          Effect.forkScoped
        )
        const model = providers.languageModel.get(voice.languageModel.provider) ??
          providers.languageModel.get("offline")
        if (model === undefined) return yield* Effect.dieMessage("no language model: offline is always configured")
        // the offline responder's retrieval (embedding, Chroma) is real work the clock does not see; network
        // providers are tested against fakes that answer on the clock, so they are not counted
        const llm: LanguageModelProvider = model.name === "offline"
          ? { name: model.name, stream: (request) => trackedStream(model.stream(request)) }
          : model
        const sttProvider = voice.speechToText.provider === "none"
          ? undefined
          : providers.speechToText.get(voice.speechToText.provider)
        const engine = yield* FiberHandle.make<void, never>()
        let attachedNow = false
        let current: MediaSession | undefined
        let takenOver: StreamTakeover | undefined
        const runTakeover = (stream: MediaSession) =>
          // recorded like the conversation was (a voicemail message is part of the call's recording)
          Effect.flatMap(recorded(stream), (media) =>
            takenOver!(media, tts).pipe(
              // done, it leaves the stream to the call's end (the carrier's hang-up closes it); stopped, it closes it
              Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : media.close)
            )).pipe(
              Effect.scoped,
              Effect.catchAllCause((cause) => Effect.logError("the stream's takeover failed", cause)),
              Effect.annotateLogs({ sessionId, streamId: stream.streamId })
            )
        // one recording for the call, however many streams it has: started with the first, finished with the call
        const callScope = yield* Effect.scope
        let recording: CallRecording | undefined
        const recorded = (media: MediaSession): Effect.Effect<MediaSession, never, Scope.Scope> =>
          Effect.gen(function*() {
            if (request.recording === undefined || Option.isNone(recordings)) return media
            recording ??= yield* recordings.value.start({
              sessionId,
              tenantId,
              sampleRate: request.recording.sampleRate
            }).pipe(
              Scope.extend(callScope)
            )
            return yield* recording.wrap(media)
          })

        const openStt = (media: MediaSession): Effect.Effect<SttStream | undefined, never, Scope.Scope> => {
          if (media.transcripts !== undefined) return Effect.succeed(media.transcripts)
          if (sttProvider === undefined) return Effect.succeed(undefined)
          return sttProvider.open({
            language: voice.language,
            model: voice.speechToText.model ?? undefined,
            keyterms: [agent.name]
          }).pipe(
            Effect.catchAll((error) =>
              Effect.as(
                notice(`speech-to-text ${sttProvider.name} could not start (${error.reason}): the agent cannot hear`),
                undefined
              )
            )
          )
        }

        const converse = (stream: MediaSession) =>
          Effect.gen(function*() {
            const media = yield* recorded(stream)
            attachedNow = true
            // a conversation that ends (the call's end, a newer stream, this instance stepping down)
            // closes its stream from our side rather than leave it to the carrier
            yield* Effect.addFinalizer(() => takenOver === undefined ? media.close : Effect.void)
            yield* Effect.acquireRelease(Metric.increment(conversations), () =>
              Effect.zipRight(
                Metric.incrementBy(conversations, -1),
                Effect.sync(() => {
                  attachedNow = false
                })
              ))
            const detector = yield* Effect.acquireRelease(vad.open, (stream) => Effect.sync(() => stream.close()))
            const stt = yield* openStt(media)
            const past = yield* request.history
            const resumed = past.length > 0
            // a greeting still being synthesised is waited for; synthesised again only if it failed
            const ready = resumed ? [] : yield* Deferred.await(prepared)
            const callTools = makeCallTools(voice, media)
            const report = media.observe === undefined
              ? request.report
              : (report: EngineReport) => Effect.zipRight(media.observe!(report), request.report(report))
            yield* runConversation({
              media,
              settings: settingsOf(voice, resumed ? RESUME_LINE : agent.greetMessage),
              vad: detector,
              stt,
              tts,
              llm,
              prepared: ready,
              history: resumed ? messagesOf(past) : undefined,
              request: {
                system: `${agent.agent_prompt}\n\n${PHONE_STYLE}`,
                tools: [
                  ...toolSpecs({
                    endCall: voice.tools.endCall,
                    knowledge: voice.tools.knowledgeLookup && agent.knowledgeBaseIds.length > 0
                  }),
                  ...callTools.specs
                ],
                model: voice.languageModel.model ?? undefined,
                temperature: voice.languageModel.temperature ?? undefined,
                agent: {
                  tenantId,
                  knowledgeBaseIds: agent.knowledgeBaseIds,
                  metadata: agent.metadata,
                  greeting: agent.greetMessage
                }
              },
              runTool: (name, args, context) =>
                name === "lookup_knowledge"
                  ? lookup(tenantId, agent.knowledgeBaseIds, args)
                  : callTools.run(name, args, context) ?? Effect.succeed(`Unknown tool ${name}.`),
              keypad: {
                terminator: voice.keypad.terminator,
                interDigitMs: voice.keypad.interDigitTimeoutMs,
                maxDigits: voice.keypad.maxDigits
              },
              report: (engineReport) =>
                Effect.flatMap(
                  callTools.report(
                    // stopped to hand its stream over (a voicemail message), not by the stream's end
                    engineReport._tag === "MediaStopped" && takenOver !== undefined
                      ? { ...engineReport, reason: "the conversation stopped: its stream was handed over" }
                      : engineReport
                  ),
                  report
                )
            })
          }).pipe(
            Effect.scoped,
            Effect.catchAllCause((cause) => Effect.logError("the conversation failed", cause)),
            Effect.annotateLogs({ sessionId, streamId: stream.streamId })
          )

        // a stream that comes again replaces the one before
        yield* local.register(sessionId, (stream) => {
          const media = request.tap?.(stream) ?? stream
          current = media
          return Effect.asVoid(FiberHandle.run(engine, takenOver === undefined ? converse(media) : runTakeover(media)))
        })

        return {
          streamRoute: Option.match(mediaServer, {
            onNone: () => Effect.succeed(Option.none()),
            onSome: (server) =>
              Effect.map(
                server.tokenFor(sessionId),
                (token) => Option.some({ streamUrl: server.twilioStreamUrl, token })
              )
          }),
          attached: () => attachedNow,
          takeOver: (run) =>
            Effect.suspend(() => {
              takenOver = run
              const media = current
              if (media === undefined) return Effect.void
              // the conversation ends first (its last line kept as far as it was heard), then the stream is handed on
              return FiberHandle.clear(engine).pipe(
                Effect.zipRight(FiberHandle.run(engine, runTakeover(media))),
                Effect.asVoid
              )
            })
        }
      }
    )

    return { prepare } as const
  })
}) {}
