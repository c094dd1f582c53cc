/** Delivery channel of a campaign or a single send. */
export enum Channel {
  WhatsApp = 'whatsapp',
  Sms = 'sms',
  Email = 'email',
}
