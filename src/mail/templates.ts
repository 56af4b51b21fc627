import type { AlertMailKind, MailContent, MailKind } from './outbox.js';

/**
 * Every mail Paygate sends, written in the recipient's language: a subject, a plain-text body and
 * an HTML body saying the same, with the mail's one link as a button and as text. The languages are
 * the payment page's eight; a language without its words for a kind does not compile, and the unit
 * test renders every kind in every language.
 */

export const MAIL_LANGUAGES = ['en', 'ru', 'hi', 'tr', 'ko', 'kk', 'uz', 'az'] as const;
export type MailLang = (typeof MAIL_LANGUAGES)[number];

/** The mail's language: a known code as it is, anything else English. */
export const mailLang = (v: unknown): MailLang => (typeof v === 'string' && (MAIL_LANGUAGES as readonly string[]).includes(v) ? (v as MailLang) : 'en');

const KINDS: Record<MailKind, true> = {
  invitation: true,
  'password-reset': true,
  'application-approved': true,
  'application-rejected': true,
  'withdrawal-requested': true,
  'withdrawal-paid': true,
  'withdrawal-rejected': true,
  'webhook-disabled': true,
  alert: true,
};
/** Every kind of mail, for the tests and the back office's list. */
export const MAIL_KINDS = Object.keys(KINDS) as MailKind[];

/** What a kind's words are made from: the values of its data as the reader reads them (dates and amounts formatted). */
interface Withdrawal {
  merchant: string;
  id: string;
  amount: string;
  destination: string;
}
interface Vars {
  invitation: { merchant: string; role: string; until: string };
  'password-reset': { place: string; until: string };
  'application-approved': { merchant: string };
  'application-rejected': { merchant: string; reason: string };
  'withdrawal-requested': Withdrawal;
  'withdrawal-paid': Withdrawal & { reference: string | null };
  'withdrawal-rejected': Withdrawal & { reason: string | null };
  'webhook-disabled': { merchant: string; url: string; reason: string };
  alert: { raised: boolean; what: string; subject: string; summary: string; at: string };
}

/** A mail's words: the subject, the paragraphs before the button (null ones left out), the button, the paragraphs after it. */
interface Parts {
  subject: string;
  lines: readonly (string | null)[];
  button: string;
  after?: readonly string[];
}

export interface MailWords {
  hello: string;
  /** Under the button: the link as text, for a mail client that shows no buttons. */
  copyHint: string;
  footer: string;
  roles: Record<'owner' | 'developer' | 'viewer', string>;
  /** Which account a reset is for, as it reads inside the reset's sentence. */
  places: Record<'cabinet' | 'office', string>;
  /** What an alert is about, by its kind, as it reads inside the alert mail's sentence. */
  alertKinds: Record<AlertMailKind, string>;
  mails: { [K in MailKind]: (v: Vars[K]) => Parts };
}

const en: MailWords = {
  hello: 'Hello,',
  copyHint: 'If the button does not open, copy this address into your browser:',
  footer: 'This mail was sent automatically by Paygate. Replies to it are not read.',
  roles: { owner: 'owner', developer: 'developer', viewer: 'viewer' },
  places: { cabinet: 'merchant cabinet', office: 'back office' },
  alertKinds: { 'unmatched-credits': 'unmatched credits', 'statement': 'bank statement', 'circuit-open': 'provider circuit open', 'requisite-limit': 'requisite near its daily limit', 'device-silent': 'silent device', 'unread-messages': 'unread messages' },
  mails: {
    invitation: (v) => ({
      subject: `Join ${v.merchant} on Paygate`,
      lines: [`You are invited to the team of ${v.merchant} on Paygate as ${v.role}.`, `Open the link to choose a password and sign in. It works once, until ${v.until}.`],
      button: 'Accept the invitation',
      after: ['If you did not expect this invitation, ignore this mail: nothing happens without the link.'],
    }),
    'password-reset': (v) => ({
      subject: 'Reset your Paygate password',
      lines: [
        `Someone asked to reset the password of your Paygate ${v.place} account. If it was you, open the link to choose a new password.`,
        `The link works once, until ${v.until} (30 minutes). Setting a new password signs you out everywhere else.`,
      ],
      button: 'Choose a new password',
      after: ['If you did not ask for this, ignore this mail: your password stays as it is.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant} is approved for live payments`,
      lines: [`We have reviewed ${v.merchant} and approved it. Live payments are open now.`],
      button: 'Open the cabinet',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: your application needs changes`,
      lines: [`We have reviewed the application of ${v.merchant} and cannot approve it as it stands.`, `Reason: ${v.reason}`, 'Correct the application in your cabinet and submit it again.'],
      button: 'Open the application',
    }),
    'withdrawal-requested': (v) => ({
      subject: `Withdrawal request for ${v.amount} received`,
      lines: [`We have received a request to withdraw ${v.amount} of ${v.merchant} to ${v.destination} (request ${v.id}).`, 'The amount is held on your balance until the request is paid or rejected.'],
      button: 'See the request',
    }),
    'withdrawal-paid': (v) => ({
      subject: `Withdrawal of ${v.amount} paid`,
      lines: [`The withdrawal of ${v.amount} of ${v.merchant} to ${v.destination} is paid (request ${v.id}).`, v.reference ? `Transfer reference: ${v.reference}` : null],
      button: 'See the request',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `Withdrawal request for ${v.amount} rejected`,
      lines: [`The withdrawal of ${v.amount} of ${v.merchant} to ${v.destination} was rejected (request ${v.id}).`, v.reason ? `Reason: ${v.reason}` : null, 'The held amount is back on your balance.'],
      button: 'See the request',
    }),
    'webhook-disabled': (v) => ({
      subject: `Webhook endpoint disabled: ${v.url}`,
      lines: [`We stopped sending events of ${v.merchant} to the webhook endpoint ${v.url}.`, `Reason: ${v.reason}`, `Events that arrive while it is disabled are not sent. Fix the receiver, enable the endpoint again and recover the events since it stopped.`],
      button: 'Open the webhook endpoints',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'Alert' : 'Resolved'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `Raised at ${v.at}: ${v.what}, ${v.subject}.` : `Resolved at ${v.at}: ${v.what}, ${v.subject}.`, v.summary],
      button: 'See the alerts',
    }),
  },
};

const ru: MailWords = {
  hello: 'Здравствуйте!',
  copyHint: 'Если кнопка не открывается, скопируйте этот адрес в браузер:',
  footer: 'Это письмо Paygate отправил автоматически. Ответы на него не читаются.',
  roles: { owner: 'владелец', developer: 'разработчик', viewer: 'наблюдатель' },
  places: { cabinet: 'кабинета мерчанта', office: 'бэк-офиса' },
  alertKinds: { 'unmatched-credits': 'неразнесённые зачисления', 'statement': 'банковская выписка', 'circuit-open': 'провайдер отключён предохранителем', 'requisite-limit': 'реквизит у дневного лимита', 'device-silent': 'устройство молчит', 'unread-messages': 'непрочитанные сообщения' },
  mails: {
    invitation: (v) => ({
      subject: `Приглашение в команду ${v.merchant} в Paygate`,
      lines: [`Вас пригласили в команду ${v.merchant} в Paygate с ролью «${v.role}».`, `Откройте ссылку, чтобы задать пароль и войти. Ссылка действует один раз, до ${v.until}.`],
      button: 'Принять приглашение',
      after: ['Если вы не ждали этого приглашения, не обращайте внимания на письмо: без ссылки ничего не произойдёт.'],
    }),
    'password-reset': (v) => ({
      subject: 'Сброс пароля Paygate',
      lines: [
        `Кто-то запросил сброс пароля вашей учётной записи ${v.place} Paygate. Если это были вы, откройте ссылку и задайте новый пароль.`,
        `Ссылка действует один раз, до ${v.until} (30 минут). Новый пароль завершит все остальные сеансы.`,
      ],
      button: 'Задать новый пароль',
      after: ['Если вы не запрашивали сброс, не обращайте внимания на письмо: пароль останется прежним.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant}: приём реальных платежей открыт`,
      lines: [`Мы проверили заявку ${v.merchant} и одобрили её. Приём реальных платежей открыт.`],
      button: 'Открыть кабинет',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: заявку нужно доработать`,
      lines: [`Мы проверили заявку ${v.merchant} и пока не можем её одобрить.`, `Причина: ${v.reason}`, 'Исправьте заявку в кабинете и отправьте её снова.'],
      button: 'Открыть заявку',
    }),
    'withdrawal-requested': (v) => ({
      subject: `Запрос на вывод ${v.amount} получен`,
      lines: [`Получен запрос на вывод ${v.amount} для ${v.merchant} на ${v.destination} (запрос ${v.id}).`, 'Сумма удерживается на балансе, пока запрос не выплачен или не отклонён.'],
      button: 'Открыть запрос',
    }),
    'withdrawal-paid': (v) => ({
      subject: `Вывод ${v.amount} выплачен`,
      lines: [`Вывод ${v.amount} для ${v.merchant} на ${v.destination} выплачен (запрос ${v.id}).`, v.reference ? `Номер перевода: ${v.reference}` : null],
      button: 'Открыть запрос',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `Запрос на вывод ${v.amount} отклонён`,
      lines: [`Вывод ${v.amount} для ${v.merchant} на ${v.destination} отклонён (запрос ${v.id}).`, v.reason ? `Причина: ${v.reason}` : null, 'Удержанная сумма вернулась на баланс.'],
      button: 'Открыть запрос',
    }),
    'webhook-disabled': (v) => ({
      subject: `Вебхук-эндпоинт отключён: ${v.url}`,
      lines: [`Мы перестали отправлять события ${v.merchant} на вебхук-эндпоинт ${v.url}.`, `Причина: ${v.reason}`, `События, пришедшие, пока он отключён, не отправляются. Исправьте приёмник, включите эндпоинт снова и восстановите события с момента остановки.`],
      button: 'Открыть вебхук-эндпоинты',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'Тревога' : 'Снято'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `Поднята ${v.at}: ${v.what}, ${v.subject}.` : `Снята ${v.at}: ${v.what}, ${v.subject}.`, v.summary],
      button: 'Открыть тревоги',
    }),
  },
};

const hi: MailWords = {
  hello: 'नमस्ते,',
  copyHint: 'अगर बटन न खुले, तो यह पता अपने ब्राउज़र में कॉपी करें:',
  footer: 'यह मेल Paygate ने अपने-आप भेजा है। इसके जवाब पढ़े नहीं जाते।',
  roles: { owner: 'मालिक', developer: 'डेवलपर', viewer: 'दर्शक' },
  places: { cabinet: 'मर्चेंट कैबिनेट', office: 'बैक ऑफ़िस' },
  alertKinds: { 'unmatched-credits': 'बिना मिलान के जमा', 'statement': 'बैंक स्टेटमेंट', 'circuit-open': 'प्रदाता का सर्किट खुला', 'requisite-limit': 'रिक्विज़िट दैनिक सीमा के पास', 'device-silent': 'डिवाइस चुप है', 'unread-messages': 'अपठित संदेश' },
  mails: {
    invitation: (v) => ({
      subject: `Paygate पर ${v.merchant} की टीम में शामिल हों`,
      lines: [`आपको Paygate पर ${v.merchant} की टीम में ${v.role} के रूप में आमंत्रित किया गया है।`, `पासवर्ड चुनने और साइन इन करने के लिए लिंक खोलें। यह लिंक केवल एक बार, ${v.until} तक काम करता है।`],
      button: 'आमंत्रण स्वीकार करें',
      after: ['अगर आपको इस आमंत्रण की उम्मीद नहीं थी, तो इस मेल को अनदेखा करें: लिंक के बिना कुछ नहीं होगा।'],
    }),
    'password-reset': (v) => ({
      subject: 'अपना Paygate पासवर्ड रीसेट करें',
      lines: [
        `किसी ने आपके Paygate ${v.place} खाते का पासवर्ड रीसेट करने का अनुरोध किया है। अगर यह आप थे, तो नया पासवर्ड चुनने के लिए लिंक खोलें।`,
        `यह लिंक केवल एक बार, ${v.until} तक (30 मिनट) काम करता है। नया पासवर्ड सेट करने पर आप बाकी सभी जगहों से साइन आउट हो जाएँगे।`,
      ],
      button: 'नया पासवर्ड चुनें',
      after: ['अगर आपने यह अनुरोध नहीं किया, तो इस मेल को अनदेखा करें: आपका पासवर्ड वही रहेगा।'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant} को लाइव भुगतानों के लिए मंज़ूरी मिल गई`,
      lines: [`हमने ${v.merchant} की समीक्षा करके उसे मंज़ूरी दे दी है। अब लाइव भुगतान खुले हैं।`],
      button: 'कैबिनेट खोलें',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: आवेदन में बदलाव चाहिए`,
      lines: [`हमने ${v.merchant} के आवेदन की समीक्षा की है और अभी इसे मंज़ूरी नहीं दे सकते।`, `कारण: ${v.reason}`, 'कैबिनेट में आवेदन ठीक करें और फिर से जमा करें।'],
      button: 'आवेदन खोलें',
    }),
    'withdrawal-requested': (v) => ({
      subject: `${v.amount} की निकासी का अनुरोध मिला`,
      lines: [`${v.merchant} के लिए ${v.destination} पर ${v.amount} की निकासी का अनुरोध मिला है (अनुरोध ${v.id})।`, 'अनुरोध का भुगतान होने या उसके अस्वीकार होने तक यह राशि आपके बैलेंस पर रोकी गई है।'],
      button: 'अनुरोध देखें',
    }),
    'withdrawal-paid': (v) => ({
      subject: `${v.amount} की निकासी का भुगतान हो गया`,
      lines: [`${v.merchant} के लिए ${v.destination} पर ${v.amount} की निकासी का भुगतान हो गया है (अनुरोध ${v.id})।`, v.reference ? `ट्रांसफ़र संदर्भ: ${v.reference}` : null],
      button: 'अनुरोध देखें',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `${v.amount} की निकासी का अनुरोध अस्वीकार हुआ`,
      lines: [`${v.merchant} के लिए ${v.destination} पर ${v.amount} की निकासी अस्वीकार कर दी गई है (अनुरोध ${v.id})।`, v.reason ? `कारण: ${v.reason}` : null, 'रोकी गई राशि आपके बैलेंस पर वापस आ गई है।'],
      button: 'अनुरोध देखें',
    }),
    'webhook-disabled': (v) => ({
      subject: `वेबहुक एंडपॉइंट बंद किया गया: ${v.url}`,
      lines: [`हमने ${v.merchant} की घटनाएँ वेबहुक एंडपॉइंट ${v.url} पर भेजना बंद कर दिया है।`, `कारण: ${v.reason}`, `बंद रहने के दौरान आई घटनाएँ नहीं भेजी जातीं। रिसीवर ठीक करें, एंडपॉइंट फिर से चालू करें और रुकने के समय से घटनाएँ पुनः प्राप्त करें।`],
      button: 'वेबहुक एंडपॉइंट खोलें',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'चेतावनी' : 'सुलझ गई'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `${v.at} पर उठाई गई: ${v.what}, ${v.subject}.` : `${v.at} पर सुलझी: ${v.what}, ${v.subject}.`, v.summary],
      button: 'चेतावनियाँ देखें',
    }),
  },
};

const tr: MailWords = {
  hello: 'Merhaba,',
  copyHint: 'Düğme açılmazsa bu adresi tarayıcınıza kopyalayın:',
  footer: 'Bu e-posta Paygate tarafından otomatik olarak gönderildi. Yanıtlar okunmaz.',
  roles: { owner: 'sahip', developer: 'geliştirici', viewer: 'izleyici' },
  places: { cabinet: 'üye işyeri paneli', office: 'arka ofis' },
  alertKinds: { 'unmatched-credits': 'eşleşmemiş alacaklar', 'statement': 'hesap ekstresi', 'circuit-open': 'sağlayıcının devresi açık', 'requisite-limit': 'rekvizit günlük limite yakın', 'device-silent': 'cihaz sessiz', 'unread-messages': 'okunmamış mesajlar' },
  mails: {
    invitation: (v) => ({
      subject: `Paygate: ${v.merchant} ekibine davet`,
      lines: [`Paygate'te ${v.merchant} ekibine "${v.role}" rolüyle davet edildiniz.`, `Bir parola belirleyip oturum açmak için bağlantıyı açın. Bağlantı yalnızca bir kez ve ${v.until} tarihine kadar geçerlidir.`],
      button: 'Daveti kabul et',
      after: ['Bu daveti beklemiyorsanız bu e-postayı dikkate almayın: bağlantı olmadan hiçbir şey olmaz.'],
    }),
    'password-reset': (v) => ({
      subject: 'Paygate parolanızı sıfırlayın',
      lines: [
        `Paygate ${v.place} hesabınızın parolasının sıfırlanması istendi. Bu isteği siz yaptıysanız yeni bir parola belirlemek için bağlantıyı açın.`,
        `Bağlantı yalnızca bir kez ve ${v.until} tarihine kadar (30 dakika) geçerlidir. Yeni parola belirlendiğinde diğer tüm oturumlarınız kapatılır.`,
      ],
      button: 'Yeni parola belirle',
      after: ['Bu isteği siz yapmadıysanız bu e-postayı dikkate almayın: parolanız değişmez.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant} canlı ödemeler için onaylandı`,
      lines: [`${v.merchant} başvurusunu inceledik ve onayladık. Canlı ödemeler artık açık.`],
      button: 'Paneli aç',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: başvurunuzda düzeltme gerekiyor`,
      lines: [`${v.merchant} başvurusunu inceledik ve şu haliyle onaylayamıyoruz.`, `Gerekçe: ${v.reason}`, 'Başvuruyu panelde düzeltip yeniden gönderin.'],
      button: 'Başvuruyu aç',
    }),
    'withdrawal-requested': (v) => ({
      subject: `${v.amount} tutarında çekim talebi alındı`,
      lines: [`${v.merchant} için ${v.amount} tutarında çekim talebi alındı; alıcı: ${v.destination} (talep ${v.id}).`, 'Tutar, talep ödenene veya reddedilene kadar bakiyenizde bloke edilir.'],
      button: 'Talebi görüntüle',
    }),
    'withdrawal-paid': (v) => ({
      subject: `${v.amount} tutarındaki çekim ödendi`,
      lines: [`${v.merchant} için ${v.amount} tutarındaki çekim ödendi; alıcı: ${v.destination} (talep ${v.id}).`, v.reference ? `Transfer referansı: ${v.reference}` : null],
      button: 'Talebi görüntüle',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `${v.amount} tutarındaki çekim talebi reddedildi`,
      lines: [`${v.merchant} için ${v.amount} tutarındaki çekim talebi reddedildi; alıcı: ${v.destination} (talep ${v.id}).`, v.reason ? `Gerekçe: ${v.reason}` : null, 'Bloke edilen tutar bakiyenize geri döndü.'],
      button: 'Talebi görüntüle',
    }),
    'webhook-disabled': (v) => ({
      subject: `Webhook uç noktası devre dışı: ${v.url}`,
      lines: [`${v.merchant} olaylarını ${v.url} webhook uç noktasına göndermeyi durdurduk.`, `Neden: ${v.reason}`, `Devre dışıyken gelen olaylar gönderilmez. Alıcıyı düzeltin, uç noktayı yeniden etkinleştirin ve durduğu andan bu yana olayları kurtarın.`],
      button: 'Webhook uç noktalarını aç',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'Uyarı' : 'Çözüldü'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `${v.at} tarihinde açıldı: ${v.what}, ${v.subject}.` : `${v.at} tarihinde çözüldü: ${v.what}, ${v.subject}.`, v.summary],
      button: 'Uyarıları gör',
    }),
  },
};

const ko: MailWords = {
  hello: '안녕하세요.',
  copyHint: '버튼이 열리지 않으면 이 주소를 브라우저에 복사해 붙여 넣으세요:',
  footer: '이 메일은 Paygate에서 자동으로 보냈습니다. 회신은 확인하지 않습니다.',
  roles: { owner: '소유자', developer: '개발자', viewer: '조회자' },
  places: { cabinet: '가맹점 캐비닛', office: '백오피스' },
  alertKinds: { 'unmatched-credits': '매칭되지 않은 입금', 'statement': '은행 명세서', 'circuit-open': '공급자 회로 차단', 'requisite-limit': '일일 한도에 근접한 계좌', 'device-silent': '응답 없는 기기', 'unread-messages': '읽지 않은 메시지' },
  mails: {
    invitation: (v) => ({
      subject: `Paygate: ${v.merchant} 팀 초대`,
      lines: [`Paygate에서 ${v.merchant} 팀에 ${v.role} 역할로 초대되었습니다.`, `링크를 열어 비밀번호를 정하고 로그인하세요. 이 링크는 ${v.until}까지 한 번만 사용할 수 있습니다.`],
      button: '초대 수락',
      after: ['이 초대를 예상하지 못했다면 이 메일을 무시하세요. 링크를 열지 않으면 아무 일도 일어나지 않습니다.'],
    }),
    'password-reset': (v) => ({
      subject: 'Paygate 비밀번호 재설정',
      lines: [
        `누군가 Paygate ${v.place} 계정의 비밀번호 재설정을 요청했습니다. 본인이 요청했다면 링크를 열어 새 비밀번호를 정하세요.`,
        `이 링크는 ${v.until}까지(30분) 한 번만 사용할 수 있습니다. 새 비밀번호를 설정하면 다른 모든 세션에서 로그아웃됩니다.`,
      ],
      button: '새 비밀번호 정하기',
      after: ['요청하지 않았다면 이 메일을 무시하세요. 비밀번호는 바뀌지 않습니다.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant}: 실거래 결제 승인`,
      lines: [`${v.merchant}의 신청서를 검토하고 승인했습니다. 이제 실거래 결제를 받을 수 있습니다.`],
      button: '캐비닛 열기',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: 신청서 수정이 필요합니다`,
      lines: [`${v.merchant}의 신청서를 검토했지만 현재 상태로는 승인할 수 없습니다.`, `사유: ${v.reason}`, '캐비닛에서 신청서를 고친 뒤 다시 제출하세요.'],
      button: '신청서 열기',
    }),
    'withdrawal-requested': (v) => ({
      subject: `${v.amount} 출금 요청을 받았습니다`,
      lines: [`${v.merchant}의 ${v.amount} 출금 요청을 받았습니다. 받는 곳: ${v.destination} (요청 ${v.id}).`, '요청이 지급되거나 거절될 때까지 이 금액은 잔액에서 보류됩니다.'],
      button: '요청 보기',
    }),
    'withdrawal-paid': (v) => ({
      subject: `${v.amount} 출금이 지급되었습니다`,
      lines: [`${v.merchant}의 ${v.amount} 출금이 지급되었습니다. 받는 곳: ${v.destination} (요청 ${v.id}).`, v.reference ? `이체 참조 번호: ${v.reference}` : null],
      button: '요청 보기',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `${v.amount} 출금 요청이 거절되었습니다`,
      lines: [`${v.merchant}의 ${v.amount} 출금 요청이 거절되었습니다. 받는 곳: ${v.destination} (요청 ${v.id}).`, v.reason ? `사유: ${v.reason}` : null, '보류된 금액은 잔액으로 돌아갔습니다.'],
      button: '요청 보기',
    }),
    'webhook-disabled': (v) => ({
      subject: `웹훅 엔드포인트가 비활성화됨: ${v.url}`,
      lines: [`${v.merchant}의 이벤트를 웹훅 엔드포인트 ${v.url}(으)로 보내는 것을 중단했습니다.`, `사유: ${v.reason}`, `비활성화된 동안 발생한 이벤트는 전송되지 않습니다. 수신기를 고친 뒤 엔드포인트를 다시 활성화하고, 중단된 시점 이후의 이벤트를 복구하세요.`],
      button: '웹훅 엔드포인트 열기',
    }),
    alert: (v) => ({
      subject: `${v.raised ? '경보' : '해제'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `${v.at}에 발생: ${v.what}, ${v.subject}.` : `${v.at}에 해제: ${v.what}, ${v.subject}.`, v.summary],
      button: '경보 보기',
    }),
  },
};

const kk: MailWords = {
  hello: 'Сәлеметсіз бе!',
  copyHint: 'Түйме ашылмаса, осы мекенжайды браузерге көшіріңіз:',
  footer: 'Бұл хатты Paygate автоматты түрде жіберді. Оған жауаптар оқылмайды.',
  roles: { owner: 'иесі', developer: 'әзірлеуші', viewer: 'бақылаушы' },
  places: { cabinet: 'мерчант кабинетіндегі', office: 'бэк-офистегі' },
  alertKinds: { 'unmatched-credits': 'сәйкестендірілмеген түсімдер', 'statement': 'банк үзінді көшірмесі', 'circuit-open': 'провайдердің тізбегі ашық', 'requisite-limit': 'реквизит күндік лимитке жақын', 'device-silent': 'құрылғы үнсіз', 'unread-messages': 'оқылмаған хабарлар' },
  mails: {
    invitation: (v) => ({
      subject: `Paygate: ${v.merchant} командасына шақыру`,
      lines: [`Сізді Paygate-те ${v.merchant} командасына «${v.role}» рөлімен шақырды.`, `Құпиясөз орнатып, кіру үшін сілтемені ашыңыз. Сілтеме бір рет қана, ${v.until} дейін жарамды.`],
      button: 'Шақыруды қабылдау',
      after: ['Бұл шақыруды күтпеген болсаңыз, хатты елемеңіз: сілтемесіз ештеңе болмайды.'],
    }),
    'password-reset': (v) => ({
      subject: 'Paygate құпиясөзін қалпына келтіру',
      lines: [
        `Paygate ${v.place} тіркелгіңіздің құпиясөзін қалпына келтіру сұралды. Бұл сіз болсаңыз, жаңа құпиясөз орнату үшін сілтемені ашыңыз.`,
        `Сілтеме бір рет қана, ${v.until} дейін (30 минут) жарамды. Жаңа құпиясөз орнатылғанда басқа барлық сеанстар жабылады.`,
      ],
      button: 'Жаңа құпиясөз орнату',
      after: ['Мұны сұрамаған болсаңыз, хатты елемеңіз: құпиясөзіңіз өзгермейді.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant}: нақты төлемдер ашылды`,
      lines: [`Біз ${v.merchant} өтінімін тексеріп, мақұлдадық. Енді нақты төлемдер қабылдай аласыз.`],
      button: 'Кабинетті ашу',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: өтінімді түзету керек`,
      lines: [`Біз ${v.merchant} өтінімін тексердік, бірақ қазіргі күйінде мақұлдай алмаймыз.`, `Себебі: ${v.reason}`, 'Өтінімді кабинетте түзетіп, қайта жіберіңіз.'],
      button: 'Өтінімді ашу',
    }),
    'withdrawal-requested': (v) => ({
      subject: `${v.amount} шығаруға сұрау алынды`,
      lines: [`${v.merchant} үшін ${v.amount} шығаруға сұрау алынды; алушы: ${v.destination} (сұрау ${v.id}).`, 'Сұрау төленгенше немесе қабылданбағанша сома балансыңызда ұсталады.'],
      button: 'Сұрауды ашу',
    }),
    'withdrawal-paid': (v) => ({
      subject: `${v.amount} шығару төленді`,
      lines: [`${v.merchant} үшін ${v.amount} шығару төленді; алушы: ${v.destination} (сұрау ${v.id}).`, v.reference ? `Аударым нөмірі: ${v.reference}` : null],
      button: 'Сұрауды ашу',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `${v.amount} шығаруға сұрау қабылданбады`,
      lines: [`${v.merchant} үшін ${v.amount} шығаруға сұрау қабылданбады; алушы: ${v.destination} (сұрау ${v.id}).`, v.reason ? `Себебі: ${v.reason}` : null, 'Ұсталған сома балансыңызға қайтарылды.'],
      button: 'Сұрауды ашу',
    }),
    'webhook-disabled': (v) => ({
      subject: `Вебхук эндпоинті өшірілді: ${v.url}`,
      lines: [`${v.merchant} оқиғаларын ${v.url} вебхук эндпоинтіне жіберуді тоқтаттық.`, `Себебі: ${v.reason}`, `Өшірулі кезде келген оқиғалар жіберілмейді. Қабылдағышты түзетіп, эндпоинтті қайта қосыңыз да, тоқтаған сәттен бергі оқиғаларды қалпына келтіріңіз.`],
      button: 'Вебхук эндпоинттерін ашу',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'Дабыл' : 'Шешілді'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `${v.at} көтерілді: ${v.what}, ${v.subject}.` : `${v.at} шешілді: ${v.what}, ${v.subject}.`, v.summary],
      button: 'Дабылдарды ашу',
    }),
  },
};

const uz: MailWords = {
  hello: 'Assalomu alaykum!',
  copyHint: 'Tugma ochilmasa, ushbu manzilni brauzeringizga nusxalang:',
  footer: 'Bu xat Paygate tomonidan avtomatik yuborildi. Unga javoblar oʻqilmaydi.',
  roles: { owner: 'egasi', developer: 'dasturchi', viewer: 'kuzatuvchi' },
  places: { cabinet: 'merchant kabinetidagi', office: 'bek-ofisdagi' },
  alertKinds: { 'unmatched-credits': 'moslanmagan tushumlar', 'statement': 'bank ko‘chirmasi', 'circuit-open': 'provayder zanjiri ochiq', 'requisite-limit': 'rekvizit kunlik limitga yaqin', 'device-silent': 'qurilma jim', 'unread-messages': 'o‘qilmagan xabarlar' },
  mails: {
    invitation: (v) => ({
      subject: `Paygate: ${v.merchant} jamoasiga taklif`,
      lines: [`Siz Paygate xizmatida ${v.merchant} jamoasiga «${v.role}» roli bilan taklif qilindingiz.`, `Parol oʻrnatib, tizimga kirish uchun havolani oching. Havola faqat bir marta, ${v.until} gacha amal qiladi.`],
      button: 'Taklifni qabul qilish',
      after: ['Agar bu taklifni kutmagan boʻlsangiz, xatga eʼtibor bermang: havolasiz hech narsa sodir boʻlmaydi.'],
    }),
    'password-reset': (v) => ({
      subject: 'Paygate parolini tiklash',
      lines: [
        `Paygate ${v.place} hisobingiz parolini tiklash soʻraldi. Agar bu siz boʻlsangiz, yangi parol oʻrnatish uchun havolani oching.`,
        `Havola faqat bir marta, ${v.until} gacha (30 daqiqa) amal qiladi. Yangi parol oʻrnatilgach, boshqa barcha seanslar yopiladi.`,
      ],
      button: 'Yangi parol oʻrnatish',
      after: ['Agar buni soʻramagan boʻlsangiz, xatga eʼtibor bermang: parolingiz oʻzgarmaydi.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant}: haqiqiy toʻlovlar ochildi`,
      lines: [`Biz ${v.merchant} arizasini koʻrib chiqdik va tasdiqladik. Endi haqiqiy toʻlovlarni qabul qilishingiz mumkin.`],
      button: 'Kabinetni ochish',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: arizani tuzatish kerak`,
      lines: [`Biz ${v.merchant} arizasini koʻrib chiqdik, lekin hozirgi holida tasdiqlay olmaymiz.`, `Sabab: ${v.reason}`, 'Arizani kabinetda tuzatib, qayta yuboring.'],
      button: 'Arizani ochish',
    }),
    'withdrawal-requested': (v) => ({
      subject: `${v.amount} yechib olish soʻrovi qabul qilindi`,
      lines: [`${v.merchant} uchun ${v.amount} yechib olish soʻrovi qabul qilindi; qabul qiluvchi: ${v.destination} (soʻrov ${v.id}).`, 'Soʻrov toʻlanmaguncha yoki rad etilmaguncha summa balansingizda ushlab turiladi.'],
      button: 'Soʻrovni koʻrish',
    }),
    'withdrawal-paid': (v) => ({
      subject: `${v.amount} yechib olish toʻlandi`,
      lines: [`${v.merchant} uchun ${v.amount} yechib olish toʻlandi; qabul qiluvchi: ${v.destination} (soʻrov ${v.id}).`, v.reference ? `Oʻtkazma raqami: ${v.reference}` : null],
      button: 'Soʻrovni koʻrish',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `${v.amount} yechib olish soʻrovi rad etildi`,
      lines: [`${v.merchant} uchun ${v.amount} yechib olish soʻrovi rad etildi; qabul qiluvchi: ${v.destination} (soʻrov ${v.id}).`, v.reason ? `Sabab: ${v.reason}` : null, 'Ushlab turilgan summa balansingizga qaytarildi.'],
      button: 'Soʻrovni koʻrish',
    }),
    'webhook-disabled': (v) => ({
      subject: `Vebxuk manzili o‘chirildi: ${v.url}`,
      lines: [`${v.merchant} hodisalarini ${v.url} vebxuk manziliga yuborishni to‘xtatdik.`, `Sabab: ${v.reason}`, `O‘chirilgan paytda kelgan hodisalar yuborilmaydi. Qabul qiluvchini tuzating, manzilni qayta yoqing va to‘xtagan paytdan beri hodisalarni tiklang.`],
      button: 'Vebxuk manzillarini ochish',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'Ogohlantirish' : 'Hal qilindi'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `${v.at} da ko‘tarildi: ${v.what}, ${v.subject}.` : `${v.at} da hal qilindi: ${v.what}, ${v.subject}.`, v.summary],
      button: 'Ogohlantirishlarni ko‘rish',
    }),
  },
};

const az: MailWords = {
  hello: 'Salam,',
  copyHint: 'Düymə açılmırsa, bu ünvanı brauzerinizə kopyalayın:',
  footer: 'Bu məktub Paygate tərəfindən avtomatik göndərilib. Cavablar oxunmur.',
  roles: { owner: 'sahib', developer: 'tərtibatçı', viewer: 'izləyici' },
  places: { cabinet: 'merchant kabinetindəki', office: 'bek-ofisdəki' },
  alertKinds: { 'unmatched-credits': 'uyğunlaşdırılmamış mədaxillər', 'statement': 'bank çıxarışı', 'circuit-open': 'provayderin dövrəsi açıqdır', 'requisite-limit': 'rekvizit gündəlik limitə yaxındır', 'device-silent': 'cihaz susur', 'unread-messages': 'oxunmamış mesajlar' },
  mails: {
    invitation: (v) => ({
      subject: `Paygate: ${v.merchant} komandasına dəvət`,
      lines: [`Siz Paygate-də ${v.merchant} komandasına «${v.role}» rolu ilə dəvət olunmusunuz.`, `Parol təyin edib daxil olmaq üçün linki açın. Link yalnız bir dəfə, ${v.until} tarixinədək keçərlidir.`],
      button: 'Dəvəti qəbul et',
      after: ['Bu dəvəti gözləmirdinizsə, məktuba fikir verməyin: link olmadan heç nə baş verməyəcək.'],
    }),
    'password-reset': (v) => ({
      subject: 'Paygate parolunu bərpa edin',
      lines: [
        `Paygate ${v.place} hesabınızın parolunun bərpası istənilib. Bunu siz etmisinizsə, yeni parol təyin etmək üçün linki açın.`,
        `Link yalnız bir dəfə, ${v.until} tarixinədək (30 dəqiqə) keçərlidir. Yeni parol təyin edildikdən sonra bütün digər seanslar bağlanır.`,
      ],
      button: 'Yeni parol təyin et',
      after: ['Bunu siz istəməmisinizsə, məktuba fikir verməyin: parolunuz dəyişməyəcək.'],
    }),
    'application-approved': (v) => ({
      subject: `${v.merchant}: real ödənişlər açıldı`,
      lines: [`${v.merchant} müraciətini yoxladıq və təsdiqlədik. Artıq real ödənişlər qəbul edə bilərsiniz.`],
      button: 'Kabineti aç',
    }),
    'application-rejected': (v) => ({
      subject: `${v.merchant}: müraciətə düzəliş lazımdır`,
      lines: [`${v.merchant} müraciətini yoxladıq, lakin hazırkı halda təsdiqləyə bilmirik.`, `Səbəb: ${v.reason}`, 'Müraciəti kabinetdə düzəldib yenidən göndərin.'],
      button: 'Müraciəti aç',
    }),
    'withdrawal-requested': (v) => ({
      subject: `${v.amount} çıxarış sorğusu qəbul edildi`,
      lines: [`${v.merchant} üçün ${v.amount} çıxarış sorğusu qəbul edildi; alıcı: ${v.destination} (sorğu ${v.id}).`, 'Sorğu ödənilənə və ya rədd edilənə qədər məbləğ balansınızda saxlanılır.'],
      button: 'Sorğuya bax',
    }),
    'withdrawal-paid': (v) => ({
      subject: `${v.amount} çıxarış ödənildi`,
      lines: [`${v.merchant} üçün ${v.amount} çıxarış ödənildi; alıcı: ${v.destination} (sorğu ${v.id}).`, v.reference ? `Köçürmə referansı: ${v.reference}` : null],
      button: 'Sorğuya bax',
    }),
    'withdrawal-rejected': (v) => ({
      subject: `${v.amount} çıxarış sorğusu rədd edildi`,
      lines: [`${v.merchant} üçün ${v.amount} çıxarış sorğusu rədd edildi; alıcı: ${v.destination} (sorğu ${v.id}).`, v.reason ? `Səbəb: ${v.reason}` : null, 'Saxlanılan məbləğ balansınıza qaytarıldı.'],
      button: 'Sorğuya bax',
    }),
    'webhook-disabled': (v) => ({
      subject: `Vebhuk son nöqtəsi söndürüldü: ${v.url}`,
      lines: [`${v.merchant} hadisələrini ${v.url} vebhuk son nöqtəsinə göndərməyi dayandırdıq.`, `Səbəb: ${v.reason}`, `Söndürülü olarkən gələn hadisələr göndərilmir. Qəbuledicini düzəldin, son nöqtəni yenidən yandırın və dayandığı andan bəri hadisələri bərpa edin.`],
      button: 'Vebhuk son nöqtələrini aç',
    }),
    alert: (v) => ({
      subject: `${v.raised ? 'Xəbərdarlıq' : 'Həll olundu'}: ${v.what} (${v.subject})`,
      lines: [v.raised ? `${v.at} qaldırıldı: ${v.what}, ${v.subject}.` : `${v.at} həll olundu: ${v.what}, ${v.subject}.`, v.summary],
      button: 'Xəbərdarlıqlara bax',
    }),
  },
};

export const MAIL_WORDS: Record<MailLang, MailWords> = { en, ru, hi, tr, ko, kk, uz, az };

// ---- rendering

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** A mail's data that cannot make its mail (a row written by another release, or damaged). */
export class MailTemplateError extends Error {}

/** A time as the reader reads it, in UTC (the mail cannot know the reader's zone), e.g. "15 January 2026 at 12:30 UTC". */
function when(lang: MailLang, iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new MailTemplateError(`not a time: ${iso}`);
  return `${new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(d)} UTC`;
}

/** USD for the reader: digits grouped, two decimals, formatted from the exact decimal string (never a float). */
function usd(lang: MailLang, amount: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(amount)) throw new MailTemplateError(`not an amount: ${amount}`);
  const f = new Intl.NumberFormat(lang, { style: 'currency', currency: 'USD', currencyDisplay: 'code', minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: 'halfExpand' } as Intl.NumberFormatOptions);
  return f.format(amount as unknown as number);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
/** One line of a header or a paragraph: a value typed by a person never breaks the mail's structure. */
const oneLine = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, ' ').trim();

function field(data: Record<string, unknown>, name: string): string {
  const v = data[name];
  if (typeof v !== 'string' || v === '') throw new MailTemplateError(`its data has no ${name}`);
  return v;
}
const optional = (data: Record<string, unknown>, name: string): string | null => (typeof data[name] === 'string' && data[name] !== '' ? (data[name] as string) : null);

/** Our links only: absolute http(s) addresses, never a `javascript:` or the like from damaged data. */
function linkOf(data: Record<string, unknown>, name: string): string {
  const v = field(data, name);
  if (!/^https?:\/\/[^\s"<>]+$/.test(v)) throw new MailTemplateError(`its ${name} is not an http(s) address`);
  return v;
}

function partsOf(w: MailWords, lang: MailLang, kind: string, data: Record<string, unknown>): { parts: Parts; link: string } {
  const withdrawal = (): Withdrawal => ({ merchant: field(data, 'merchantName'), id: field(data, 'requestId'), amount: usd(lang, field(data, 'amountUsd')), destination: field(data, 'destination') });
  switch (kind) {
    case 'invitation': {
      const role = field(data, 'role');
      return {
        parts: w.mails.invitation({ merchant: field(data, 'merchantName'), role: w.roles[role as keyof MailWords['roles']] ?? role, until: when(lang, field(data, 'expiresAt')) }),
        link: linkOf(data, 'link'),
      };
    }
    case 'password-reset': {
      const surface = field(data, 'surface');
      if (surface !== 'cabinet' && surface !== 'office') throw new MailTemplateError(`unknown surface ${surface}`);
      return { parts: w.mails['password-reset']({ place: w.places[surface], until: when(lang, field(data, 'expiresAt')) }), link: linkOf(data, 'link') };
    }
    case 'application-approved':
      return { parts: w.mails['application-approved']({ merchant: field(data, 'merchantName') }), link: linkOf(data, 'cabinetUrl') };
    case 'application-rejected':
      return { parts: w.mails['application-rejected']({ merchant: field(data, 'merchantName'), reason: field(data, 'reason') }), link: linkOf(data, 'cabinetUrl') };
    case 'withdrawal-requested':
      return { parts: w.mails['withdrawal-requested'](withdrawal()), link: linkOf(data, 'cabinetUrl') };
    case 'withdrawal-paid':
      return { parts: w.mails['withdrawal-paid']({ ...withdrawal(), reference: optional(data, 'reference') }), link: linkOf(data, 'cabinetUrl') };
    case 'withdrawal-rejected':
      return { parts: w.mails['withdrawal-rejected']({ ...withdrawal(), reason: optional(data, 'reason') }), link: linkOf(data, 'cabinetUrl') };
    case 'webhook-disabled':
      return { parts: w.mails['webhook-disabled']({ merchant: field(data, 'merchantName'), url: field(data, 'url'), reason: field(data, 'reason') }), link: linkOf(data, 'cabinetUrl') };
    case 'alert': {
      const event = field(data, 'event');
      if (event !== 'raised' && event !== 'resolved') throw new MailTemplateError(`unknown alert event ${event}`);
      const alertKind = field(data, 'alertKind');
      const what = (w.alertKinds as Record<string, string>)[alertKind] ?? alertKind;
      return {
        parts: w.mails.alert({ raised: event === 'raised', what, subject: field(data, 'subject'), summary: field(data, 'summary'), at: when(lang, field(data, 'at')) }),
        link: linkOf(data, 'link'),
      };
    }
    default:
      throw new MailTemplateError(`unknown kind of mail ${kind}`);
  }
}

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Noto Sans',Helvetica,Arial,sans-serif";

/**
 * The subject, text and HTML of a mail, in its language (English for a language it does not know).
 * Values typed by people (a merchant's name, a reason) are escaped in the HTML and kept to one line.
 * Throws MailTemplateError when the data cannot make the mail.
 */
export function renderMail(mail: { lang: string; kind: string; data: Record<string, unknown> } | ({ lang?: string } & MailContent)): RenderedMail {
  const lang = mailLang(mail.lang);
  const w = MAIL_WORDS[lang];
  const { parts, link } = partsOf(w, lang, mail.kind, mail.data as Record<string, unknown>);
  const lines = parts.lines.filter((l): l is string => l !== null).map(oneLine);
  const after = (parts.after ?? []).map(oneLine);
  const subject = oneLine(parts.subject);
  const text = [w.hello, '', ...lines.flatMap((l) => [l, '']), `${parts.button}: ${link}`, '', ...after.flatMap((l) => [l, '']), '--', w.footer, ''].join('\n');
  const p = (s: string, style = '') => `<p style="margin:0 0 16px;${style}">${esc(s)}</p>`;
  const html = `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(subject)}</title></head>
<body style="margin:0;padding:24px 12px;background:#f3f4f6;font-family:${FONT};font-size:16px;line-height:1.5;color:#1f2933;">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #d9dee4;border-radius:8px;padding:28px 24px;">
<p style="margin:0 0 24px;font-size:18px;font-weight:700;color:#0b4f8a;">Paygate</p>
${p(w.hello)}
${lines.map((l) => p(l)).join('\n')}
<p style="margin:24px 0;"><a href="${esc(link)}" style="display:inline-block;background:#0b4f8a;color:#ffffff;text-decoration:none;font-weight:600;padding:12px 20px;border-radius:6px;">${esc(parts.button)}</a></p>
<p style="margin:0 0 16px;font-size:14px;color:#52606d;">${esc(w.copyHint)}<br><a href="${esc(link)}" style="color:#0b4f8a;word-break:break-all;">${esc(link)}</a></p>
${after.map((l) => p(l, 'font-size:14px;color:#52606d;')).join('\n')}
<hr style="border:none;border-top:1px solid #d9dee4;margin:24px 0 12px;">
<p style="margin:0;font-size:12px;color:#52606d;">${esc(w.footer)}</p>
</div>
</body>
</html>
`;
  return { subject, text, html };
}
