/**
 * Password rules of the cabinet and the back office: at least 10 characters, not one of the
 * passwords attackers try first. Pure: the hashing lives with the accounts service.
 */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

// Passwords of 10 characters or more that lead every published breach list, and their obvious shapes.
const COMMON = new Set([
  '1234567890', '0987654321', '1234512345', '1111111111', '0000000000', '1q2w3e4r5t', 'qwertyuiop', 'q1w2e3r4t5',
  'password12', 'password123', 'password1234', 'passw0rd123', 'iloveyou12', 'iloveyou123', 'qwerty1234', 'qwerty12345',
  'qwerty123456', 'asdfghjkl1', 'asdfghjkl;', 'zxcvbnm123', '1qaz2wsx3edc', 'abc1234567', 'abcdefghij', 'abcd123456',
  'princess12', 'football12', 'baseball12', 'sunshine12', 'welcome123', 'letmein123', 'administrator', 'admin12345',
  'changeme123', 'trustno1trustno1', 'starwars123', 'whatever12', 'michael123', 'superman123', 'monkey1234', 'dragon1234',
  'master1234', 'shadow1234', 'computer12', 'internet12', '123456789a', 'a123456789', '12345678910', '123123123123',
  '1234567891', '9876543210', '147258369', '1472583690', 'paygate123', 'paygate1234', 'merchant123', 'password!1',
]);

/** Why the password is refused, or null when it is acceptable. */
export function passwordProblem(pw: string): string | null {
  if (pw.length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (pw.length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  const lower = pw.toLowerCase();
  if (COMMON.has(lower) || /^(.)\1+$/.test(pw) || /^(.{1,4})\1+$/.test(lower)) return 'is too common; choose a longer or less predictable one';
  return null;
}
