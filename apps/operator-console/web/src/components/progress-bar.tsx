import { formatCount } from '../format/format';

export interface ProgressBarProps {
  /** The accessible name ("Upload", "Progress of Spring sale"). */
  readonly label: string;
  /** Whole percent, 0 to 100. */
  readonly percent: number;
  /** The done/total figures said with the percentage, if any. */
  readonly done?: number;
  readonly total?: number;
  readonly valueText?: string;
}

/** A progress bar with role progressbar and aria-valuenow in percent. */
export function ProgressBar({ label, percent, done, total, valueText }: ProgressBarProps) {
  const text =
    valueText ??
    (done === undefined || total === undefined
      ? `${percent}%`
      : `${percent}% (${formatCount(done)} of ${formatCount(total)})`);
  return (
    <div
      class="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={text}
    >
      <div class="progress-track">
        <div class="progress-fill" style={{ width: `${percent}%` }} />
        <span class="progress-text">{percent}%</span>
      </div>
      {done === undefined || total === undefined ? null : (
        <span class="progress-figures">
          {formatCount(done)} of {formatCount(total)}
        </span>
      )}
    </div>
  );
}
