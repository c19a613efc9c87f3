import {
  FRAME_SAMPLES,
  joinWebCall,
  SAMPLE_RATE,
  startWebCall,
  type WebCall,
  WebCallRefused
} from "@voiceagent/client/WebCall"
import { useEffect, useRef, useState } from "preact/hooks"
import { type ApiError, session } from "../api"
import { Card, ErrorBox } from "../ui"
import microphoneWorklet from "./MicrophoneWorklet.ts?worker&url"

interface Line {
  readonly speaker: "agent" | "customer"
  readonly text: string
  readonly interrupted: boolean
}

/** What a call in progress holds: released together when it ends. */
interface Live {
  readonly call: WebCall
  readonly context: AudioContext
  readonly stream: MediaStream
  readonly playing: Set<AudioBufferSourceNode>
}

/**
 * "Talk to this agent": a web call from the browser's microphone over the web-call WebSocket
 * (packages/client/src/WebCall.ts, docs/web-calls.md), the agent's audio played as it comes, the
 * live transcript beside it (below it at phone width). Audio both ways is 16 kHz mono PCM in 20 ms
 * frames: the AudioContext runs at 16 kHz, so the browser resamples the microphone and the agent's
 * audio for us; the microphone is read by an AudioWorklet (MicrophoneWorklet.ts).
 */
export const TalkPanel = ({ agentId, active }: { readonly agentId: string; readonly active: boolean }) => {
  const [state, setState] = useState<"idle" | "connecting" | "live" | "ended">("idle")
  const [lines, setLines] = useState<ReadonlyArray<Line>>([])
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const [endReason, setEndReason] = useState<string | null>(null)
  const live = useRef<Live | null>(null)

  const release = () => {
    const current = live.current
    live.current = null
    if (current === null) return
    for (const source of current.playing) source.stop()
    current.stream.getTracks().forEach((track) => track.stop())
    void current.context.close()
  }
  useEffect(() => () => {
    live.current?.call.hangup()
    release()
  }, [])

  const start = async () => {
    setError(undefined)
    setLines([])
    setEndReason(null)
    setState("connecting")
    let stream: MediaStream
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true }
      })
    } catch (cause) {
      setError({ code: "MICROPHONE", message: `The microphone is not available: ${String(cause)}` })
      setState("idle")
      return
    }
    try {
      const token = session.value?.token ?? ""
      const ticket = await startWebCall({ baseUrl: location.origin, apiKey: token, agentId })
      // the stream on this page's own origin (the gateway serving it tunnels the WebSocket)
      const streamUrl = new URL(ticket.url)
      const url = `${
        location.protocol === "https:" ? "wss:" : "ws:"
      }//${location.host}${streamUrl.pathname}${streamUrl.search}`
      const context = new AudioContext({ sampleRate: SAMPLE_RATE })
      try {
        await context.audioWorklet.addModule(microphoneWorklet)
      } catch (cause) {
        void context.close()
        throw cause
      }
      const playing = new Set<AudioBufferSourceNode>()
      let playAt = 0
      const call = joinWebCall({ ...ticket, url }, {
        onAudio: (pcm) => {
          const buffer = context.createBuffer(1, pcm.length, SAMPLE_RATE)
          const channel = buffer.getChannelData(0)
          for (let i = 0; i < pcm.length; i++) channel[i] = pcm[i]! / 32768
          const source = context.createBufferSource()
          source.buffer = buffer
          source.connect(context.destination)
          playAt = Math.max(playAt, context.currentTime)
          source.start(playAt)
          playAt += buffer.duration
          playing.add(source)
          source.onended = () => playing.delete(source)
        },
        onEvent: (event) => {
          switch (event.type) {
            case "started":
              setState("live")
              return
            case "transcript":
              setLines((
                previous
              ) => [...previous, { speaker: event.speaker, text: event.text, interrupted: event.interrupted }])
              return
            case "clear":
              for (const source of playing) source.stop()
              playing.clear()
              playAt = context.currentTime
              return
            case "end":
              setEndReason(event.reason)
              return
            case "dtmf":
              return
          }
        }
      })
      live.current = { call, context, stream, playing }
      // the microphone, as 20 ms frames of 16-bit PCM from the AudioWorklet (the worklet has no
      // outputs: it is a sink the context still runs)
      const microphone = context.createMediaStreamSource(stream)
      const frames = new AudioWorkletNode(context, "microphone-frames", {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        processorOptions: { frameSamples: FRAME_SAMPLES }
      })
      frames.port.onmessage = (event: MessageEvent<Int16Array>) => call.send(event.data)
      microphone.connect(frames)
      void call.ended.then(({ reason }) => {
        setEndReason((previous) => previous ?? reason ?? "closed")
        setState("ended")
        release()
      })
    } catch (cause) {
      stream.getTracks().forEach((track) => track.stop())
      setError(
        cause instanceof WebCallRefused
          ? { code: cause.code, message: cause.message.replace(/^\d+ [A-Z_]+: /, "") }
          : { code: "WEB_CALL", message: String(cause) }
      )
      setState("idle")
    }
  }

  return (
    <Card title="Talk to this agent">
      <div class="talk">
        <div class="talk-controls">
          <p class="hint">A web call from this browser's microphone, billed like any web call.</p>
          <div class="actions">
            {state === "live" || state === "connecting"
              ? <button type="button" class="danger" onClick={() => live.current?.call.hangup()}>Hang up</button>
              : <button type="button" disabled={!active} onClick={() => void start()}>Start a web call</button>}
            <span role="status" data-testid="talk-state" data-state={state}>
              {state === "connecting"
                ? "Connecting…"
                : state === "live"
                ? "On the call"
                : state === "ended"
                ? `Call ended (${endReason ?? "closed"})`
                : ""}
            </span>
          </div>
          {!active && <p class="hint">Activate the agent to talk to it.</p>}
          <ErrorBox error={error} />
        </div>
        <section class="talk-transcript" aria-label="Live transcript" aria-live="polite">
          {lines.length === 0
            ? (
              <p class="empty">
                {state === "idle" ? "The call's transcript shows here as it goes." : "Nothing said yet."}
              </p>
            )
            : (
              <ol class="transcript" data-testid="talk-transcript">
                {lines.map((line, i) => (
                  <li key={i} class={`turn ${line.speaker}${line.interrupted ? " interrupted" : ""}`}>
                    <span class="who">{line.speaker === "agent" ? "Agent" : "You"}</span>
                    <p>{line.text}{line.interrupted && <span class="badge">interrupted</span>}</p>
                  </li>
                ))}
              </ol>
            )}
        </section>
      </div>
    </Card>
  )
}
