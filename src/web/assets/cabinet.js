// Cabinet enhancements only; every page works without this file.
// Writes the reader's local time beside each UTC time.
(function () {
  'use strict';
  var times = document.querySelectorAll('time[datetime]');
  for (var i = 0; i < times.length; i++) {
    var d = new Date(times[i].getAttribute('datetime'));
    if (isNaN(d.getTime())) continue;
    var local = document.createElement('span');
    local.className = 'muted';
    local.textContent = ' (' + d.toLocaleString() + ' local)';
    times[i].insertAdjacentElement('afterend', local);
  }
})();
