/**
 * The conversation of a call, as one pure transition function beside `CallMachine`:
 * `(state, event, settings) → {state, commands}`. The engine that runs it feeds events from the
 * caller's audio (voice activity, transcripts), the language model, the speech it plays and its
 * timers, and carries out the commands; this module decides.
 *
 * Phases: `Connecting` → greeting (`Speaking`) → `Listening` ⇄ `UserSpeaking` → `EndpointPending` →
 * `Thinking` → `Speaking` → … → `Ended`. Every agent response has an id; an event of another
 * response than the current (or the held preemptive) one is stale and ignored, so output of an
 * earlier response is never played.
 *
 * - End of turn: the caller's silence (voice activity) starts a wait whose length depends on what
 *   they said (`TurnPolicy.endpointDelay`); speech resuming cancels it. Meanwhile the reply may be
 *   generated ahead of time from the final transcript, held until the turn is confirmed, and
 *   discarded if the caller goes on (preemptive generation).
 * - Barge-in: caller speech while the agent talks is a candidate interruption. After `minSpeechMs`
 *   of it, words that are not a backchannel confirm it; if no words are known yet, the agent pauses
 *   (its audio is cleared at once, as a person stops when the other starts) until they are: words
 *   confirm the interruption, a backchannel or a noise that ends resumes the agent at the word it
 *   stopped on, and the response stays whole. Speech lasting `maxSpeechWithoutWordsMs` confirms it
 *   too. A confirmed interruption aborts the reply, and once the engine says what was heard, only that
 *   enters the transcript and the model's context. If the caller then says nothing within
 *   `falseInterruptionMs`, the agent goes on with what was not heard.
 * - Idle: after the agent finished and the caller stays silent, a reminder, then a goodbye and a
 *   hang-up.
 * - Tools: the model may end the call, or ask for a lookup (run by the engine); a filler line is
 *   spoken when a tool takes longer than `fillerAfterMs` and nothing is playing. A tool may finish
 *   the agent's part (a transfer): its last line, said whole, then the hang-up with its reason.
 * - Keys: an entry of the caller's keypad (`Keypad`) is their turn at once; while the agent talks
 *   it cuts it off as confirmed speech does.
 * - A model that fails gets a spoken fallback line, then the call ends.
 */
import * as Data from "effect/Data"
import { unheardText } from "./Playback.js"
import {
  defaultBackchannels,
  defaultEndpointing,
  endpointDelay,
  type EndpointingSettings,
  wordsBeyondBackchannel
} from "./TurnPolicy.js"

// ---------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------

export interface InterruptionSettings {
  /** Whether the caller may interrupt the agent at all. */
  readonly enabled: boolean
  /** Speech this long, with words, interrupts (ms). */
  readonly minSpeechMs: number
  /** Words (not backchannel phrases) needed to interrupt. */
  readonly minWords: number
  /** Speech this long interrupts even before any words are transcribed (ms). */
  readonly maxSpeechWithoutWordsMs: number
  /** Phrases that never interrupt. */
  readonly backchannels: ReadonlyArray<string>
  /** After an interruption with no words within this (ms), the agent resumes what was not heard. */
  readonly falseInterruptionMs: number
}

export interface IdleSettings {
  /** Silence after the agent finished before a reminder (ms). */
  readonly reminderAfterMs: number
  /** Reminders before the goodbye. */
  readonly reminders: number
  readonly reminderText: string
  readonly goodbyeText: string
}

export interface ConversationSettings {
  readonly greeting: string
  /** Whether the caller may interrupt the greeting. */
  readonly greetingInterruptible: boolean
  readonly endpointing: EndpointingSettings
  readonly interruption: InterruptionSettings
  readonly idle: IdleSettings
  /** Generate the reply from the final transcript before the turn is confirmed, holding its audio. */
  readonly preemptiveGeneration: boolean
  /** Said when a tool has run this long (ms) with nothing playing. */
  readonly fillerAfterMs: number
  readonly fillerText: string
  /** Said when the language model fails; then the call ends. */
  readonly fallbackText: string
  /** Said before hanging up when the model ends the call without words of its own. */
  readonly closingText: string
}

export const defaultInterruption: InterruptionSettings = {
  enabled: true,
  minSpeechMs: 200,
  minWords: 1,
  maxSpeechWithoutWordsMs: 1_200,
  backchannels: defaultBackchannels,
  falseInterruptionMs: 2_000
}

export const defaultIdle: IdleSettings = {
  reminderAfterMs: 8_000,
  reminders: 1,
  reminderText: "Are you still there?",
  goodbyeText: "It seems you've stepped away. Goodbye!"
}

export const defaultSettings = (greeting: string): ConversationSettings => ({
  greeting,
  greetingInterruptible: true,
  endpointing: defaultEndpointing,
  interruption: defaultInterruption,
  idle: defaultIdle,
  preemptiveGeneration: true,
  fillerAfterMs: 1_000,
  fillerText: "One moment, let me check that.",
  fallbackText: "I'm sorry, I'm having trouble right now. Someone will call you back. Goodbye.",
  closingText: "Thank you for your time. Goodbye!"
})

// ---------------------------------------------------------------------------
// What the model sees
// ---------------------------------------------------------------------------

export interface ToolCall {
  readonly id: string
  readonly name: string
  /** JSON text, as the model wrote it. */
  readonly arguments: string
}

export type Message =
  | { readonly role: "user"; readonly content: string }
  | {
    readonly role: "assistant"
    readonly content: string
    readonly toolCalls?: ReadonlyArray<ToolCall> | undefined
    /** Cut short by the caller: `content` is what they heard. */
    readonly interrupted?: boolean | undefined
  }
  | { readonly role: "tool"; readonly toolCallId: string; readonly content: string }

/** The tool that ends the call; the engine offers it to the model, the machine carries it out. */
export const END_CALL_TOOL = "end_call"

// ---------------------------------------------------------------------------
// Events and commands
// ---------------------------------------------------------------------------

export type Timer = "endpoint" | "interruption" | "falseInterruption" | "idle" | "filler"

export type ConversationEvent = Data.TaggedEnum<{
  /** The call's media is connected: the greeting plays. */
  Started: { readonly at: number }
  /** The caller's voice starts (voice activity). */
  SpeechStarted: { readonly at: number }
  /** The caller's voice stops. */
  SpeechEnded: { readonly at: number }
  /** Speech-to-text: interim (may change) or final text of the caller's current speech. */
  Transcript: { readonly text: string; readonly isFinal: boolean; readonly at: number }
  TimerFired: { readonly timer: Timer; readonly at: number }
  /** Text of a response, as the model streams it. */
  ReplyText: { readonly responseId: number; readonly text: string; readonly at: number }
  /** The model's round ended asking for tools. */
  ReplyToolCalls: { readonly responseId: number; readonly calls: ReadonlyArray<ToolCall>; readonly at: number }
  /** The model's round ended with its answer. */
  ReplyDone: { readonly responseId: number; readonly at: number }
  ReplyFailed: { readonly responseId: number; readonly reason: string; readonly at: number }
  ToolFinished: {
    readonly responseId: number
    readonly callId: string
    readonly result: string
    readonly at: number
    /** The tool ends the agent's part of the call (a transfer): its last line (may be empty), then `HangUp(reason)`. */
    readonly finish?: { readonly text: string; readonly reason: HangUpReason } | undefined
  }
  /** The first audio of a response went to the caller. */
  PlaybackStarted: { readonly responseId: number; readonly at: number }
  /** Everything a finished response had to say has played. */
  PlaybackFinished: { readonly responseId: number; readonly at: number }
  /** After `Clear`: the words the caller heard of the response. */
  PlaybackCleared: { readonly responseId: number; readonly heard: string; readonly at: number }
  /** The speech engine failed on a response: nothing more can be said. */
  SpeechFailed: { readonly responseId: number; readonly reason: string; readonly at: number }
  /**
   * The call's media ended (the caller hung up, or the call was ended). `heard`: what the caller heard
   * of the response on the air, as the engine's playback position says (null: it cannot tell, and the
   * text sent is kept).
   */
  Stopped: { readonly at: number; readonly heard: string | null }
  /** Keys the caller pressed, gathered into one entry (`[keypad] 1234`): a turn of the caller's. */
  Keypad: { readonly text: string; readonly at: number }
  /** A key pressed, its entry not complete yet: the caller is busy, not idle. */
  KeyPressed: { readonly at: number }
}>
export const ConversationEvent = Data.taggedEnum<ConversationEvent>()

export type ConversationCommand = Data.TaggedEnum<{
  /** Synthesize and play `text` as part of response `responseId` (held while the response is held). */
  Speak: { readonly responseId: number; readonly text: string; readonly interruptible: boolean }
  /** Response `responseId` has no more to say. */
  EndSpeech: { readonly responseId: number }
  /** A held (preemptive) response may play. */
  Release: { readonly responseId: number }
  /** Stop the response's audio now and drop what is queued; answer with `PlaybackCleared`. */
  Clear: { readonly responseId: number }
  /** Like `Clear`, but the response may resume (`Resume`): keep what it has yet to say. */
  Pause: { readonly responseId: number }
  /** A paused response goes on from the word it stopped on. */
  Resume: { readonly responseId: number }
  /** Ask the model for response `responseId` from `history`; `held`: its audio waits for `Release`. */
  Generate: { readonly responseId: number; readonly history: ReadonlyArray<Message>; readonly held: boolean }
  /** Abandon response `responseId`: its model round and its speech. */
  Abort: { readonly responseId: number }
  RunTool: { readonly responseId: number; readonly call: ToolCall }
  StartTimer: { readonly timer: Timer; readonly at: number }
  StopTimer: { readonly timer: Timer }
  /** Ask speech-to-text for its final words now (the caller went quiet). */
  Finalize: {}
  /** A line of the transcript. */
  Commit: {
    readonly speaker: "agent" | "customer"
    readonly text: string
    readonly at: number
    readonly interrupted: boolean
    /** The agent response it was, or the one the caller's line prompted. */
    readonly responseId: number
  }
  /** End the call. */
  HangUp: { readonly reason: HangUpReason }
}>
export const ConversationCommand = Data.taggedEnum<ConversationCommand>()

export type HangUpReason = "agent_ended" | "idle" | "llm_failed" | "speech_failed" | "transferred"

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

/** A response of the agent: generated by the model (in rounds, when it uses tools) or scripted. */
export interface Response {
  readonly id: number
  /** Everything it has said or is to say (all rounds): the transcript's line. */
  readonly said: string
  /** The current model round's text: what enters the model's context. */
  readonly round: string
  readonly interruptible: boolean
  /** Whether its audio has started playing. */
  readonly playing: boolean
  /** Whether it has no more to say (`EndSpeech` sent). */
  readonly complete: boolean
  /** Tool calls of the current round still running. */
  readonly toolsRunning: ReadonlyArray<string>
  /** What happens once it has played. */
  readonly then: "listen" | HangUpReason
  /** Whether what it says enters the model's context (the greeting and model answers do; reminders do not). */
  readonly inContext: boolean
}

/** The caller's turn being collected. */
export interface UserTurn {
  /** Final transcripts so far. */
  readonly finals: ReadonlyArray<string>
  /** The latest interim transcript after them. */
  readonly interim: string
  readonly startedAt: number
  /** When the caller went quiet (null while speaking). */
  readonly endedAt: number | null
}

export type Phase = "Connecting" | "Listening" | "UserSpeaking" | "EndpointPending" | "Thinking" | "Speaking" | "Ended"

export interface ConversationState {
  readonly phase: Phase
  /** The last response id given out. */
  readonly lastResponseId: number
  /** The response being generated or spoken. */
  readonly response: Response | null
  /** A reply generated ahead from the caller's words so far, its audio held: and those words. */
  readonly held: { readonly response: Response; readonly forText: string } | null
  readonly userTurn: UserTurn | null
  /** Caller speech while the agent talks or thinks, not yet confirmed as an interruption. */
  readonly candidate: { readonly since: number; readonly words: number; readonly sawText: boolean } | null
  /** The current response, paused for that speech, and what of it was heard (once the engine says). */
  readonly paused: {
    readonly responseId: number
    readonly heard: { readonly text: string; readonly at: number } | null
  } | null
  /** A response cut off by the caller, waiting for what was heard of it. */
  readonly clearing: Response | null
  /** After an interruption: what the agent had not said, resumed if the caller says nothing. */
  readonly unheard: string | null
  readonly history: ReadonlyArray<Message>
  readonly remindersGiven: number
}

export const initialState: ConversationState = {
  phase: "Connecting",
  lastResponseId: 0,
  response: null,
  held: null,
  userTurn: null,
  candidate: null,
  paused: null,
  clearing: null,
  unheard: null,
  history: [],
  remindersGiven: 0
}

export interface Step {
  readonly state: ConversationState
  readonly commands: ReadonlyArray<ConversationCommand>
}

const C = ConversationCommand
const stay = (state: ConversationState): Step => ({ state, commands: [] })

const TIMERS: ReadonlyArray<Timer> = ["endpoint", "interruption", "falseInterruption", "idle", "filler"]

const userText = (turn: UserTurn | null): string => {
  if (turn === null) return ""
  const finals = turn.finals.join(" ").trim()
  return finals !== "" ? finals : turn.interim.trim()
}

const newResponse = (id: number, options: Partial<Response> = {}): Response => ({
  id,
  said: "",
  round: "",
  interruptible: true,
  playing: false,
  complete: false,
  toolsRunning: [],
  then: "listen",
  inContext: true,
  ...options
})

/**
 * The agent says `text` (a line the model did not write): the greeting, a reminder, a goodbye, what it had not said.
 */
const say = (
  state: ConversationState,
  text: string,
  options: { readonly interruptible: boolean; readonly then: Response["then"]; readonly inContext: boolean }
): Step => {
  const id = state.lastResponseId + 1
  return {
    state: {
      ...state,
      phase: "Speaking",
      lastResponseId: id,
      response: newResponse(id, { said: text, round: text, complete: true, ...options }),
      candidate: null
    },
    commands: [
      C.StopTimer({ timer: "idle" }),
      C.Speak({ responseId: id, text, interruptible: options.interruptible }),
      C.EndSpeech({ responseId: id })
    ]
  }
}

/** Back to listening after the agent is done: the idle timer runs. */
const listen = (state: ConversationState, at: number, settings: ConversationSettings): Step => ({
  state: { ...state, phase: "Listening", response: null, candidate: null, userTurn: null },
  commands: [C.StartTimer({ timer: "idle", at: at + settings.idle.reminderAfterMs })]
})

/**
 * Model rounds cut short before any of their answer was heard leave an assistant message with tool
 * calls and the tools' results at the end of the history: dropped, as the model never finished them.
 */
const dropOpenRound = (history: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  let end = history.length
  while (end > 0) {
    const last = history[end - 1]!
    if (
      last.role === "tool" || (last.role === "assistant" && last.toolCalls !== undefined && last.toolCalls.length > 0)
    ) end--
    else break
  }
  return history.slice(0, end)
}

/** The response `id` refers to, current or held, and a way to write it back. */
const find = (state: ConversationState, id: number) => {
  if (state.response?.id === id) {
    return {
      response: state.response,
      held: false,
      put: (r: Response): ConversationState => ({ ...state, response: r })
    }
  }
  if (state.held?.response.id === id) {
    const held = state.held
    return {
      response: held.response,
      held: true,
      put: (r: Response): ConversationState => ({ ...state, held: { ...held, response: r } })
    }
  }
  return undefined
}

/** The caller's turn is over: commit it, and answer it (or release the reply prepared for it). */
const commitUserTurn = (state: ConversationState, at: number, settings: ConversationSettings): Step => {
  const text = userText(state.userTurn)
  const timers = [C.StopTimer({ timer: "endpoint" }), C.StopTimer({ timer: "falseInterruption" })]
  if (text === "") {
    // voice without words (a noise): no turn; an interrupted agent resumes what it had not said
    const abort = state.held === null ? [] : [C.Abort({ responseId: state.held.response.id })]
    const cleared: ConversationState = { ...state, held: null, userTurn: null, unheard: null }
    const next = state.unheard !== null && state.unheard !== ""
      ? say(cleared, state.unheard, { interruptible: true, then: "listen", inContext: true })
      : listen(cleared, at, settings)
    return { state: next.state, commands: [...timers, ...abort, ...next.commands] }
  }
  const history: ReadonlyArray<Message> = [...state.history, { role: "user", content: text }]
  const base: ConversationState = {
    ...state,
    history,
    userTurn: null,
    unheard: null,
    candidate: null,
    remindersGiven: 0
  }
  if (state.held !== null && state.held.forText === text) {
    const response = state.held.response
    return {
      state: { ...base, phase: response.playing ? "Speaking" : "Thinking", held: null, response },
      commands: [
        ...timers,
        C.Commit({ speaker: "customer", text, at, interrupted: false, responseId: response.id }),
        C.Release({ responseId: response.id })
      ]
    }
  }
  const abort = state.held === null ? [] : [C.Abort({ responseId: state.held.response.id })]
  const id = state.lastResponseId + 1
  return {
    state: { ...base, phase: "Thinking", held: null, lastResponseId: id, response: newResponse(id) },
    commands: [
      ...timers,
      ...abort,
      C.Commit({ speaker: "customer", text, at, interrupted: false, responseId: id }),
      C.Generate({ responseId: id, history, held: false })
    ]
  }
}

/**
 * What the caller heard of a response cut off: that enters the transcript (as interrupted) and,
 * for the current model round, the context; what they did not hear waits to be resumed should they
 * say nothing after all.
 */
const afterClear = (
  state: ConversationState,
  response: Response,
  heard: string,
  at: number,
  settings: ConversationSettings
): Step => {
  const text = heard.trim()
  // earlier rounds' text is in the context already
  const before = response.said.slice(0, response.said.length - response.round.length).trim()
  const roundHeard = text.startsWith(before) ? text.slice(before.length).trim() : ""
  const history = roundHeard === "" || !response.inContext
    ? (text === "" ? dropOpenRound(state.history) : state.history)
    : [...state.history, { role: "assistant" as const, content: roundHeard, interrupted: true }]
  return {
    state: { ...state, clearing: null, history, unheard: unheardText(response.said, text) },
    commands: [
      ...(text === "" ? [] : [C.Commit({ speaker: "agent", text, at, interrupted: true, responseId: response.id })]),
      C.StartTimer({ timer: "falseInterruption", at: at + settings.interruption.falseInterruptionMs })
    ]
  }
}

/**
 * The caller takes the turn while the agent talks or thinks. A response playing is cleared first
 * (what was heard of it comes back with `PlaybackCleared`), one paused for this speech is already
 * quiet; one not yet heard is just dropped.
 */
const interrupt = (state: ConversationState, settings: ConversationSettings): Step => {
  const since = state.candidate?.since ?? 0
  const stops = [
    C.StopTimer({ timer: "interruption" }),
    C.StopTimer({ timer: "filler" }),
    C.StopTimer({ timer: "idle" })
  ]
  const speaking: ConversationState = {
    ...state,
    phase: "UserSpeaking",
    response: null,
    candidate: null,
    paused: null,
    userTurn: { finals: [], interim: "", startedAt: since, endedAt: null }
  }
  if (state.paused !== null) {
    const { heard } = state.paused
    const response = state.response!
    if (heard === null) {
      return { state: { ...speaking, clearing: response }, commands: [C.Abort({ responseId: response.id }), ...stops] }
    }
    const cleared = afterClear(speaking, response, heard.text, heard.at, settings)
    return { state: cleared.state, commands: [C.Abort({ responseId: response.id }), ...stops, ...cleared.commands] }
  }
  const response = state.response!
  if (response.playing) {
    return {
      state: { ...speaking, clearing: response },
      commands: [C.Clear({ responseId: response.id }), C.Abort({ responseId: response.id }), ...stops]
    }
  }
  return {
    state: { ...speaking, history: dropOpenRound(state.history) },
    commands: [C.Abort({ responseId: response.id }), ...stops]
  }
}

/** Words from the caller while the agent talks: enough of them (and not a backchannel) interrupt it. */
const onCandidateWords = (state: ConversationState, text: string, at: number, settings: ConversationSettings): Step => {
  const candidate = state.candidate!
  const words = Math.max(candidate.words, wordsBeyondBackchannel(text, settings.interruption.backchannels))
  const next: ConversationState = {
    ...state,
    candidate: { ...candidate, words, sawText: candidate.sawText || text.trim() !== "" }
  }
  return words >= settings.interruption.minWords && at - candidate.since >= settings.interruption.minSpeechMs
    ? interrupt(next, settings)
    : stay(next)
}

/** The speech that paused the agent was a backchannel or a noise: it goes on from where it stopped. */
const resume = (state: ConversationState): Step => ({
  state: { ...state, paused: null, candidate: null, phase: "Speaking" },
  commands: [C.StopTimer({ timer: "interruption" }), C.Resume({ responseId: state.paused!.responseId })]
})

/** The media ended: what was said so far is kept, and nothing more happens. */
const stop = (state: ConversationState, at: number, heard: string | null): Step => {
  const commands: Array<ConversationCommand> = []
  for (const response of [state.response, state.held?.response ?? null]) {
    if (response !== null) commands.push(C.Abort({ responseId: response.id }))
  }
  commands.push(...TIMERS.map((timer) => C.StopTimer({ timer })))
  const response = state.response
  // the line on the air is kept as far as the caller heard it
  const kept = (heard ?? response?.said ?? "").trim()
  if (response !== null && response.playing && kept !== "") {
    commands.push(C.Commit({ speaker: "agent", text: kept, at, interrupted: true, responseId: response.id }))
  }
  const said = userText(state.userTurn)
  if (said !== "") {
    commands.push(
      C.Commit({ speaker: "customer", text: said, at, interrupted: false, responseId: state.lastResponseId })
    )
  }
  return {
    state: { ...state, phase: "Ended", response: null, held: null, candidate: null, paused: null, userTurn: null },
    commands
  }
}

/**
 * Keys the caller pressed: a turn of theirs, taken at once (no endpointing wait), with any words
 * they said before. While the agent talks or thinks, they cut it off as confirmed speech does (the
 * turn is taken once what was heard of the agent is known); during a line that may not be
 * interrupted (a goodbye, a greeting so configured) they are dropped.
 */
const keypad = (state: ConversationState, text: string, at: number, settings: ConversationSettings): Step => {
  switch (state.phase) {
    case "Listening":
    case "UserSpeaking":
    case "EndpointPending": {
      const said = userText(state.userTurn)
      const turn: UserTurn = {
        finals: said === "" ? [text] : [said, text],
        interim: "",
        startedAt: state.userTurn?.startedAt ?? at,
        endedAt: at
      }
      const step = commitUserTurn({ ...state, userTurn: turn }, at, settings)
      return { state: step.state, commands: [C.StopTimer({ timer: "idle" }), ...step.commands] }
    }
    case "Speaking":
    case "Thinking": {
      const response = state.response
      if (response === null || !response.interruptible || !settings.interruption.enabled) return stay(state)
      const cut = interrupt({ ...state, candidate: { since: at, words: 1, sawText: true } }, settings)
      return {
        state: {
          ...cut.state,
          phase: "EndpointPending",
          userTurn: { finals: [text], interim: "", startedAt: at, endedAt: at }
        },
        commands: [...cut.commands, C.StartTimer({ timer: "endpoint", at })]
      }
    }
    default:
      return stay(state)
  }
}

// ---------------------------------------------------------------------------
// The transition
// ---------------------------------------------------------------------------

export const transition = (
  state: ConversationState,
  event: ConversationEvent,
  settings: ConversationSettings
): Step => {
  if (state.phase === "Ended") return stay(state)
  switch (event._tag) {
    case "Stopped":
      return stop(state, event.at, event.heard)

    case "Keypad":
      return keypad(state, event.text, event.at, settings)

    case "KeyPressed":
      return state.phase === "Listening" ? { state, commands: [C.StopTimer({ timer: "idle" })] } : stay(state)

    case "Started":
      return state.phase === "Connecting"
        ? say(state, settings.greeting, {
          interruptible: settings.greetingInterruptible,
          then: "listen",
          inContext: true
        })
        : stay(state)

    case "SpeechStarted":
      switch (state.phase) {
        case "Listening":
          return {
            state: {
              ...state,
              phase: "UserSpeaking",
              userTurn: { finals: [], interim: "", startedAt: event.at, endedAt: null }
            },
            commands: [C.StopTimer({ timer: "idle" })]
          }
        case "EndpointPending": {
          // the caller goes on: the wait is off, and so is a reply prepared from their words so far
          const abort = state.held === null ? [] : [C.Abort({ responseId: state.held.response.id })]
          return {
            state: { ...state, phase: "UserSpeaking", held: null, userTurn: { ...state.userTurn!, endedAt: null } },
            commands: [C.StopTimer({ timer: "endpoint" }), ...abort]
          }
        }
        case "Speaking":
        case "Thinking": {
          const response = state.response
          if (
            response === null || !response.interruptible || !settings.interruption.enabled || state.candidate !== null
          ) {
            return stay(state)
          }
          return {
            state: { ...state, candidate: { since: event.at, words: 0, sawText: false } },
            commands: [C.StartTimer({ timer: "interruption", at: event.at + settings.interruption.minSpeechMs })]
          }
        }
        default:
          return stay(state)
      }

    case "SpeechEnded":
      switch (state.phase) {
        case "UserSpeaking": {
          const turn: UserTurn = { ...state.userTurn!, endedAt: event.at }
          return {
            state: { ...state, phase: "EndpointPending", userTurn: turn },
            commands: [
              C.Finalize(),
              C.StartTimer({ timer: "endpoint", at: event.at + endpointDelay(userText(turn), settings.endpointing) })
            ]
          }
        }
        case "Speaking":
        case "Thinking":
          // it was a backchannel or a noise: the agent goes on (from where it paused, if it did)
          if (state.paused !== null) return resume(state)
          return state.candidate === null
            ? stay(state)
            : { state: { ...state, candidate: null }, commands: [C.StopTimer({ timer: "interruption" })] }
        default:
          return stay(state)
      }

    case "Transcript":
      switch (state.phase) {
        case "Listening": {
          // words the voice detector missed: the caller speaks
          if (event.text.trim() === "") return stay(state)
          if (!event.isFinal) {
            return {
              state: {
                ...state,
                phase: "UserSpeaking",
                userTurn: { finals: [], interim: event.text, startedAt: event.at, endedAt: null }
              },
              commands: [C.StopTimer({ timer: "idle" })]
            }
          }
          const turn: UserTurn = { finals: [event.text], interim: "", startedAt: event.at, endedAt: event.at }
          return {
            state: { ...state, phase: "EndpointPending", userTurn: turn },
            commands: [
              C.StopTimer({ timer: "idle" }),
              C.StartTimer({ timer: "endpoint", at: event.at + endpointDelay(event.text, settings.endpointing) })
            ]
          }
        }
        case "UserSpeaking": {
          const turn = state.userTurn!
          if (!event.isFinal) return stay({ ...state, userTurn: { ...turn, interim: event.text } })
          return stay({
            ...state,
            userTurn: {
              ...turn,
              finals: event.text.trim() === "" ? turn.finals : [...turn.finals, event.text],
              interim: ""
            }
          })
        }
        case "EndpointPending": {
          const turn = state.userTurn!
          if (!event.isFinal) return stay({ ...state, userTurn: { ...turn, interim: event.text } })
          if (event.text.trim() === "") return stay(state)
          const updated: UserTurn = { ...turn, finals: [...turn.finals, event.text], interim: "" }
          const text = userText(updated)
          // the wait counts from when the caller went quiet, and follows what they said
          const deadline = Math.max(event.at, (turn.endedAt ?? event.at) + endpointDelay(text, settings.endpointing))
          const next: ConversationState = { ...state, userTurn: updated }
          const timer = C.StartTimer({ timer: "endpoint", at: deadline })
          if (!settings.preemptiveGeneration) return { state: next, commands: [timer] }
          // prepare the reply now; its audio waits until the turn is confirmed
          const abort = state.held === null ? [] : [C.Abort({ responseId: state.held.response.id })]
          const id = state.lastResponseId + 1
          return {
            state: { ...next, lastResponseId: id, held: { response: newResponse(id), forText: text } },
            commands: [
              timer,
              ...abort,
              C.Generate({ responseId: id, history: [...state.history, { role: "user", content: text }], held: true })
            ]
          }
        }
        case "Speaking":
        case "Thinking":
          return state.candidate === null ? stay(state) : onCandidateWords(state, event.text, event.at, settings)
        default:
          return stay(state)
      }

    case "TimerFired":
      switch (event.timer) {
        case "endpoint":
          return state.phase === "EndpointPending" ? commitUserTurn(state, event.at, settings) : stay(state)
        case "interruption": {
          if ((state.phase !== "Speaking" && state.phase !== "Thinking") || state.candidate === null) return stay(state)
          const { sawText, since, words } = state.candidate
          if (words >= settings.interruption.minWords) return interrupt(state, settings)
          if (event.at - since >= settings.interruption.maxSpeechWithoutWordsMs) return interrupt(state, settings)
          const later = C.StartTimer({
            timer: "interruption",
            at: since + settings.interruption.maxSpeechWithoutWordsMs
          })
          const response = state.response
          if (sawText || state.paused !== null || response === null || !response.playing) {
            // only a backchannel so far, or nothing to pause: it interrupts if it lasts
            return { state, commands: [later] }
          }
          // no words known yet: the agent stops (as a person would) until they are
          return {
            state: { ...state, paused: { responseId: response.id, heard: null } },
            commands: [C.Pause({ responseId: response.id }), later]
          }
        }
        case "falseInterruption": {
          // interrupted, and the caller said nothing after all: the agent goes on with what it had not said
          if (state.unheard === null || state.unheard === "" || userText(state.userTurn) !== "") return stay(state)
          if (state.phase !== "Listening" && state.phase !== "UserSpeaking" && state.phase !== "EndpointPending") {
            return stay(state)
          }
          const abort = state.held === null ? [] : [C.Abort({ responseId: state.held.response.id })]
          const resumed = say({ ...state, held: null, userTurn: null, unheard: null }, state.unheard, {
            interruptible: true,
            then: "listen",
            inContext: true
          })
          return { state: resumed.state, commands: [C.StopTimer({ timer: "endpoint" }), ...abort, ...resumed.commands] }
        }
        case "idle": {
          if (state.phase !== "Listening") return stay(state)
          if (state.remindersGiven < settings.idle.reminders) {
            return say({ ...state, remindersGiven: state.remindersGiven + 1 }, settings.idle.reminderText, {
              interruptible: true,
              then: "listen",
              inContext: false
            })
          }
          return say(state, settings.idle.goodbyeText, { interruptible: false, then: "idle", inContext: false })
        }
        case "filler": {
          const response = state.response
          if (
            state.phase !== "Thinking" || response === null || response.playing || response.toolsRunning.length === 0
          ) {
            return stay(state)
          }
          // a tool takes a while and nothing plays: a line, so the caller does not wait in silence
          return {
            state: { ...state, response: { ...response, said: `${response.said} ${settings.fillerText}`.trim() } },
            commands: [C.Speak({ responseId: response.id, text: settings.fillerText, interruptible: true })]
          }
        }
      }
      return stay(state)

    case "ReplyText": {
      const found = find(state, event.responseId)
      if (found === undefined || found.response.complete || event.text === "") return stay(state)
      const r = found.response
      // the first words of a round after a filler or a tool's turn start a new sentence of the line
      const joiner = r.round === "" && r.said !== "" && !/\s$/.test(r.said) && !/^\s/.test(event.text) ? " " : ""
      return {
        state: found.put({ ...r, said: r.said + joiner + event.text, round: r.round + event.text }),
        commands: [C.Speak({ responseId: r.id, text: event.text, interruptible: r.interruptible })]
      }
    }

    case "ReplyToolCalls": {
      const found = find(state, event.responseId)
      if (found === undefined || found.response.complete) return stay(state)
      const r = found.response
      const history: ReadonlyArray<Message> = [...state.history, {
        role: "assistant",
        content: r.round,
        toolCalls: event.calls
      }]
      if (event.calls.some((call) => call.name === END_CALL_TOOL)) {
        // the model ends the call: what it said is its goodbye, else the closing line
        const closing = r.said.trim() === "" ? settings.closingText : ""
        const ended = {
          ...r,
          said: r.said + closing,
          complete: true,
          interruptible: false,
          then: "agent_ended" as const
        }
        return {
          state: found.put(ended),
          commands: [
            ...(closing === "" ? [] : [C.Speak({ responseId: r.id, text: closing, interruptible: false })]),
            C.EndSpeech({ responseId: r.id })
          ]
        }
      }
      if (found.held) {
        // a reply prepared ahead that needs tools is not worth holding: the turn, once confirmed, asks again
        return { state: { ...state, held: null }, commands: [C.Abort({ responseId: r.id })] }
      }
      // the round's text and calls enter the context; the tools run
      return {
        state: { ...found.put({ ...r, round: "", toolsRunning: event.calls.map((c) => c.id) }), history },
        commands: [
          ...event.calls.map((call) => C.RunTool({ responseId: r.id, call })),
          ...(r.playing ? [] : [C.StartTimer({ timer: "filler", at: event.at + settings.fillerAfterMs })])
        ]
      }
    }

    case "ToolFinished": {
      const found = find(state, event.responseId)
      if (found === undefined || !found.response.toolsRunning.includes(event.callId)) return stay(state)
      const r = found.response
      const history: ReadonlyArray<Message> = [...state.history, {
        role: "tool",
        toolCallId: event.callId,
        content: event.result
      }]
      const running = r.toolsRunning.filter((id) => id !== event.callId)
      if (event.finish !== undefined && !found.held) {
        // the agent's part of the call is over: its last line, then the call goes on without it
        const line = event.finish.text.trim()
        const ended = {
          ...r,
          toolsRunning: [],
          said: line === "" ? r.said : `${r.said} ${line}`.trim(),
          complete: true,
          interruptible: false,
          then: event.finish.reason
        }
        return {
          state: { ...found.put(ended), history },
          commands: [
            C.StopTimer({ timer: "filler" }),
            ...(line === "" ? [] : [C.Speak({ responseId: r.id, text: line, interruptible: false })]),
            C.EndSpeech({ responseId: r.id })
          ]
        }
      }
      const next = { ...found.put({ ...r, toolsRunning: running }), history }
      if (running.length > 0) return stay(next)
      // every result is in: the model goes on
      return {
        state: next,
        commands: [C.StopTimer({ timer: "filler" }), C.Generate({ responseId: r.id, history, held: false })]
      }
    }

    case "ReplyDone": {
      const found = find(state, event.responseId)
      if (found === undefined || found.response.complete) return stay(state)
      const r = found.response
      // the end of a round that asked for tools (it comes before their results): the response goes on with them
      if (r.toolsRunning.length > 0) return stay(state)
      if (!found.held && r.said.trim() === "") {
        // nothing to say after all: listen again
        const next = listen(state, event.at, settings)
        return { state: next.state, commands: [C.EndSpeech({ responseId: r.id }), ...next.commands] }
      }
      return { state: found.put({ ...r, complete: true }), commands: [C.EndSpeech({ responseId: r.id })] }
    }

    case "ReplyFailed": {
      const found = find(state, event.responseId)
      if (found === undefined) return stay(state)
      // a held reply that failed is asked for again once the turn is confirmed
      if (found.held) return stay({ ...state, held: null })
      const r = found.response
      const next = say({ ...state, response: null }, settings.fallbackText, {
        interruptible: false,
        then: "llm_failed",
        inContext: false
      })
      return {
        state: next.state,
        commands: [
          ...(r.playing ? [C.Clear({ responseId: r.id })] : []),
          C.Abort({ responseId: r.id }),
          C.StopTimer({ timer: "filler" }),
          ...next.commands
        ]
      }
    }

    case "PlaybackStarted": {
      if (state.response?.id !== event.responseId || state.response.playing) return stay(state)
      return {
        state: { ...state, phase: "Speaking", response: { ...state.response, playing: true } },
        commands: [C.StopTimer({ timer: "filler" })]
      }
    }

    case "PlaybackFinished": {
      const r = state.response
      if (r?.id !== event.responseId || !r.complete) return stay(state)
      const said = r.said.trim()
      const round = r.round.trim()
      const commit = said === ""
        ? []
        : [C.Commit({ speaker: "agent", text: said, at: event.at, interrupted: false, responseId: r.id })]
      const history: ReadonlyArray<Message> = r.inContext && round !== "" && r.then === "listen"
        ? [...state.history, { role: "assistant", content: round }]
        : state.history
      if (r.then !== "listen") {
        return {
          state: { ...state, history, phase: "Ended", response: null, candidate: null },
          commands: [...commit, ...TIMERS.map((timer) => C.StopTimer({ timer })), C.HangUp({ reason: r.then })]
        }
      }
      const listening = listen({ ...state, history }, event.at, settings)
      return {
        state: listening.state,
        commands: [...commit, C.StopTimer({ timer: "interruption" }), ...listening.commands]
      }
    }

    case "PlaybackCleared": {
      if (state.paused?.responseId === event.responseId) {
        // paused: what was heard is kept until the pause turns out to be an interruption or not
        return stay({ ...state, paused: { ...state.paused, heard: { text: event.heard, at: event.at } } })
      }
      const r = state.clearing
      if (r?.id !== event.responseId) return stay(state)
      return afterClear(state, r, event.heard, event.at, settings)
    }

    case "SpeechFailed": {
      if (state.held?.response.id === event.responseId) return stay({ ...state, held: null })
      if (state.response?.id !== event.responseId) return stay(state)
      // nothing can be said any more: the call ends
      return {
        state: { ...state, phase: "Ended", response: null, candidate: null },
        commands: [
          C.Abort({ responseId: event.responseId }),
          ...TIMERS.map((timer) => C.StopTimer({ timer })),
          C.HangUp({ reason: "speech_failed" })
        ]
      }
    }
  }
}
