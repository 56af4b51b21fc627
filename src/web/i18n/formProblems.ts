import type { Lang } from './index.js';

/** Why a form could not be read at all, before any page looked at its fields. */
export type FormProblem = 'tooLarge' | 'tooManyFields' | 'nul' | 'malformed' | 'notAForm';

export interface FormProblemText {
  title: string;
  back: string;
  reasons: Record<FormProblem, string>;
}

/** The form-problem page in every language the pages speak; `{limit}` is the size we accept. */
export const FORM_PROBLEM_TEXT: Record<Lang, FormProblemText> = {
  en: {
    title: 'This form could not be sent',
    back: 'Back to the page',
    reasons: {
      tooLarge: 'The form is larger than we accept ({limit}). Remove the long text or the large file and send it again.',
      tooManyFields: 'The form has more fields than any of our forms. Reload the page and fill it in again.',
      nul: 'The form contains a character that cannot be stored (a NUL byte). Remove it and send the form again.',
      malformed: 'The form arrived damaged. Reload the page and send it again.',
      notAForm: 'This address takes a form sent from its page. Open the page and use its form.',
    },
  },
  ru: {
    title: 'Форму не удалось отправить',
    back: 'Вернуться на страницу',
    reasons: {
      tooLarge: 'Форма больше допустимого ({limit}). Уберите длинный текст или большой файл и отправьте снова.',
      tooManyFields: 'В форме больше полей, чем в любой из наших форм. Обновите страницу и заполните её заново.',
      nul: 'В форме есть символ, который нельзя сохранить (нулевой байт). Уберите его и отправьте форму снова.',
      malformed: 'Форма пришла повреждённой. Обновите страницу и отправьте снова.',
      notAForm: 'Этот адрес принимает только форму со своей страницы. Откройте страницу и воспользуйтесь формой.',
    },
  },
  hi: {
    title: 'यह फ़ॉर्म भेजा नहीं जा सका',
    back: 'पेज पर वापस जाएँ',
    reasons: {
      tooLarge: 'फ़ॉर्म हमारी सीमा ({limit}) से बड़ा है। लंबा टेक्स्ट या बड़ी फ़ाइल हटाकर फिर से भेजें।',
      tooManyFields: 'इस फ़ॉर्म में हमारे किसी भी फ़ॉर्म से ज़्यादा फ़ील्ड हैं। पेज फिर से लोड करके दोबारा भरें।',
      nul: 'फ़ॉर्म में ऐसा अक्षर है जिसे सहेजा नहीं जा सकता (NUL बाइट)। उसे हटाकर फ़ॉर्म फिर से भेजें।',
      malformed: 'फ़ॉर्म खराब होकर पहुँचा। पेज फिर से लोड करके दोबारा भेजें।',
      notAForm: 'यह पता केवल अपने पेज से भेजा गया फ़ॉर्म लेता है। पेज खोलकर उसका फ़ॉर्म इस्तेमाल करें।',
    },
  },
  tr: {
    title: 'Bu form gönderilemedi',
    back: 'Sayfaya dön',
    reasons: {
      tooLarge: 'Form kabul ettiğimiz boyuttan ({limit}) büyük. Uzun metni veya büyük dosyayı çıkarıp yeniden gönderin.',
      tooManyFields: 'Formda, formlarımızın hiçbirinde olmayan sayıda alan var. Sayfayı yenileyip formu yeniden doldurun.',
      nul: 'Formda saklanamayan bir karakter (NUL baytı) var. Onu silip formu yeniden gönderin.',
      malformed: 'Form bozuk ulaştı. Sayfayı yenileyip yeniden gönderin.',
      notAForm: 'Bu adres yalnızca kendi sayfasından gönderilen formu kabul eder. Sayfayı açıp formunu kullanın.',
    },
  },
  ko: {
    title: '이 양식을 보낼 수 없습니다',
    back: '페이지로 돌아가기',
    reasons: {
      tooLarge: '양식이 허용 크기({limit})보다 큽니다. 긴 글이나 큰 파일을 빼고 다시 보내 주세요.',
      tooManyFields: '양식의 항목 수가 저희 어떤 양식보다 많습니다. 페이지를 새로 고친 뒤 다시 작성해 주세요.',
      nul: '양식에 저장할 수 없는 문자(NUL 바이트)가 있습니다. 그 문자를 지우고 다시 보내 주세요.',
      malformed: '양식이 손상되어 도착했습니다. 페이지를 새로 고친 뒤 다시 보내 주세요.',
      notAForm: '이 주소는 해당 페이지에서 보낸 양식만 받습니다. 페이지를 열고 양식을 이용해 주세요.',
    },
  },
  kk: {
    title: 'Бұл форманы жіберу мүмкін болмады',
    back: 'Бетке оралу',
    reasons: {
      tooLarge: 'Форма рұқсат етілген көлемнен ({limit}) үлкен. Ұзын мәтінді немесе үлкен файлды алып тастап, қайта жіберіңіз.',
      tooManyFields: 'Формада біздің кез келген формамыздан көп өріс бар. Бетті жаңартып, форманы қайта толтырыңыз.',
      nul: 'Формада сақтауға болмайтын таңба (NUL байты) бар. Оны өшіріп, форманы қайта жіберіңіз.',
      malformed: 'Форма бүлінген күйде келді. Бетті жаңартып, қайта жіберіңіз.',
      notAForm: 'Бұл мекенжай тек өз бетінен жіберілген форманы қабылдайды. Бетті ашып, оның формасын пайдаланыңыз.',
    },
  },
  uz: {
    title: 'Bu shaklni yuborib boʻlmadi',
    back: 'Sahifaga qaytish',
    reasons: {
      tooLarge: 'Shakl ruxsat etilgan hajmdan ({limit}) katta. Uzun matn yoki katta faylni olib tashlab, qayta yuboring.',
      tooManyFields: 'Shaklda bizning har qanday shaklimizdagidan koʻp maydon bor. Sahifani yangilab, shaklni qayta toʻldiring.',
      nul: 'Shaklda saqlab boʻlmaydigan belgi (NUL bayt) bor. Uni oʻchirib, shaklni qayta yuboring.',
      malformed: 'Shakl buzilgan holda keldi. Sahifani yangilab, qayta yuboring.',
      notAForm: 'Bu manzil faqat oʻz sahifasidan yuborilgan shaklni qabul qiladi. Sahifani ochib, shakldan foydalaning.',
    },
  },
  az: {
    title: 'Bu formu göndərmək mümkün olmadı',
    back: 'Səhifəyə qayıt',
    reasons: {
      tooLarge: 'Form qəbul etdiyimiz ölçüdən ({limit}) böyükdür. Uzun mətni və ya böyük faylı çıxarıb yenidən göndərin.',
      tooManyFields: 'Formda bizim hər hansı formumuzdakından çox sahə var. Səhifəni yeniləyib formu yenidən doldurun.',
      nul: 'Formda saxlanıla bilməyən simvol (NUL baytı) var. Onu silib formu yenidən göndərin.',
      malformed: 'Form zədələnmiş halda çatdı. Səhifəni yeniləyib yenidən göndərin.',
      notAForm: 'Bu ünvan yalnız öz səhifəsindən göndərilən formu qəbul edir. Səhifəni açıb onun formundan istifadə edin.',
    },
  },
};
