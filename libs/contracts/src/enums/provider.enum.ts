/** Provider behind a credential; each has one adapter in the notification sender. */
export enum Provider {
  WhatsAppCloud = 'whatsapp-cloud',
  Twilio = 'twilio',
  Ses = 'ses',
  Mitto = 'mitto',
  Simulator = 'simulator',
}
