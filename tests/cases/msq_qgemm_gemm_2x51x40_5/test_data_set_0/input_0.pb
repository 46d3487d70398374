(Binput_0JP9‘ûÅDM:‡¬gÆ•E8·QÙm×IOáå¡ÍþŽ[¨ñ¨CB•
þšd+ñPo!º]¬N´®hÞIZUSK§¿¾cAóm¥Fi[ßÁKaß