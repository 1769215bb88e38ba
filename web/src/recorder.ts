/**
 * A voice note recorded in the composer: the microphone through MediaRecorder (Opus in WebM where the
 * browser has it), kept in memory until the person lets go; then sent as it is (api.sendVoice).
 */

/** The types asked for, best first: what the gateway's speech-to-text gets. */
const TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/mp4', 'audio/webm'];

export class Recording {
  readonly startedAt = Date.now();
  private readonly chunks: Blob[] = [];

  private constructor(
    private readonly stream: MediaStream,
    private readonly recorder: MediaRecorder,
  ) {
    recorder.addEventListener('dataavailable', (e) => {
      if (e.data.size) this.chunks.push(e.data);
    });
  }

  /** Asks for the microphone (the browser asks the person the first time) and starts recording. */
  static async start(): Promise<Recording> {
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined')
      throw new Error('This browser cannot record here (it needs HTTPS or localhost, and a microphone).');
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const mimeType = TYPES.find((t) => MediaRecorder.isTypeSupported(t));
    const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
    const r = new Recording(stream, recorder);
    recorder.start(250);
    return r;
  }

  /** Stops and returns what was recorded. */
  stop(): Promise<Blob> {
    return new Promise((resolve) => {
      this.recorder.addEventListener(
        'stop',
        () => {
          this.release();
          resolve(new Blob(this.chunks, { type: this.recorder.mimeType || 'audio/webm' }));
        },
        { once: true },
      );
      this.recorder.stop();
    });
  }

  /** Stops and throws the recording away. */
  cancel(): void {
    if (this.recorder.state !== 'inactive') this.recorder.stop();
    this.release();
  }

  private release(): void {
    for (const t of this.stream.getTracks()) t.stop();
  }
}
