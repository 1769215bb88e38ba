/** One line of `rudder doctor`'s report. */
export interface Check {
  name: string;
  ok: boolean;
  required: boolean;
  detail: string;
  fix?: string;
}
