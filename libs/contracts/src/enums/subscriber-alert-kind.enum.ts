export enum SubscriberAlertKind {
  Tombstoned = 'tombstoned',
  Disabled = 'disabled',
  Resurrected = 'resurrected',
}
