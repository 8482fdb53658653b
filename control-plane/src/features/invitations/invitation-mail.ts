// The invitation e-mail: who invites whom to which organization, with which role, and the link.
import type { OutgoingMail } from '../notifications/senders/smtp-transport.js';
import type { Invitation } from './invitation.js';

const day = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

export function invitationMail(invitation: Invitation, acceptUrl: string): OutgoingMail {
  const inviter = invitation.invitedBy ? `${invitation.invitedBy.fullName} (${invitation.invitedBy.email})` : 'An administrator';
  const text = [
    `${inviter} invited you to join ${invitation.organizationName} on Outpost as ${article(invitation.role)} ${invitation.role}.`,
    '',
    'Accept the invitation here:',
    acceptUrl,
    '',
    `The link works once, until ${day.format(invitation.expiresAt)} UTC. If you have an Outpost account with this address,`,
    'sign in with its password there; otherwise choose a name and a password.',
    '',
    'If you did not expect this invitation, ignore this mail.',
    '',
  ].join('\n');
  return { subject: `[Outpost] You are invited to join ${invitation.organizationName}`, text };
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
