/** The From header and the nodemailer message fields both adapters compose from a MailMessage. */
import type { MailAddress, MailMessage } from './port.js';

export function mailFields(message: MailMessage, sender: MailAddress) {
  return {
    from: { name: message.fromName ?? sender.name ?? '', address: sender.address },
    to: { name: message.to.name ?? '', address: message.to.address },
    ...(message.replyTo ? { replyTo: { name: message.replyTo.name ?? '', address: message.replyTo.address } } : {}),
    subject: message.subject,
    text: message.text,
    ...(message.html === undefined ? {} : { html: message.html }),
    headers: message.headers ?? {},
  };
}
